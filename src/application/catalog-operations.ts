import { ServiceError } from '../errors/service-error.js';
import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import { CreateServiceBody, ListEventTypesQuery, ListServicesQuery, ServicePath } from '../contract/schemas/service.js';
import { serviceSlug } from '../domain/service-slug.js';
import { newId } from '../persistence/new-id.js';
import { bumpGraphVersion } from '../persistence/organization-repository.js';
import { queueProviderTime } from './waitlist/queue-provider-time.js';
import {
  countServices,
  findServiceRow,
  insertServiceRow,
  listServiceRows,
  toServiceView,
  type ServiceDoc,
  type ServiceView,
} from '../persistence/service-repository.js';
import type { AppDeps } from './app-deps.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { providerOfCaller } from './provider-operations.js';
import { recordAudit } from './record-audit.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** The v1 event-type view of a service (SPEC part 9: `title`, `length`). */
export function toEventTypeV1(s: ServiceView) {
  return {
    id: s.id,
    providerId: s.providerId,
    slug: s.slug,
    title: s.title,
    length: s.duration,
    price: s.price,
    currency: s.currency,
    modality: s.modality,
  };
}

/** CatalogService operations: services (session types) of providers and their v1 event-type view. */
export function createCatalogOperations(deps: AppDeps): OperationTable {
  /** Checks a provider id named in a query or body: 404 when unknown, 403 when another organization's. */
  const checkProvider = async (caller: Caller, providerId: string | undefined) => {
    if (providerId !== undefined) await providerOfCaller(deps.db, caller, providerId);
  };

  return {
    CreateService: {
      audit: { ...AUDIT_ACTIONS.serviceCreate, kind: 'write' },
      async handler(caller, input) {
        const body = parseInput(CreateServiceBody, input.body);
        const slug = serviceSlug(body.title);
        const doc: ServiceDoc = {
          title: body.title,
          duration: body.duration,
          price: body.price ?? null,
          currency: body.currency ?? null,
          modality: body.modality ?? null,
          slotIntervalMinutes: body.slotIntervalMinutes ?? body.duration,
          minimumNoticeMinutes: body.minimumNoticeMinutes ?? 0,
          bufferBeforeMinutes: body.bufferBeforeMinutes ?? 0,
          bufferAfterMinutes: body.bufferAfterMinutes ?? 0,
        };
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const provider = await providerOfCaller(tx, caller, body.providerId);
          const row = await insertServiceRow(tx, {
            id: newId('svc', now.getTime()),
            platformId: caller.platformId,
            organizationId: caller.organizationId,
            providerId: provider.id,
            slug,
            doc,
            now,
          });
          if (!row)
            throw new ServiceError(
              'DUPLICATE_EXTERNAL_ID',
              `Provider ${provider.id} already has a service with the slug "${slug}"; the slug comes from the title, so choose a different title.`,
              { field: 'title' },
            );
          const view = toServiceView(row);
          await bumpGraphVersion(tx, caller.organizationId);
          // A provider newly offering a session type may have time for its waiting entries.
          await queueProviderTime(tx, { ...caller, providerId: provider.id, now });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.serviceCreate,
            resourceId: view.id,
            after: view,
          });
          return view;
        });
      },
    },
    ListServices: {
      audit: { ...AUDIT_ACTIONS.serviceList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListServicesQuery, input.query);
        await checkProvider(caller, q.providerId);
        const limit = q.limit ?? 50;
        const filter = { organizationId: caller.organizationId, providerId: q.providerId, slug: q.slug };
        const total = await countServices(deps.db, filter);
        const rows = await listServiceRows(deps.db, filter, { after: decodeCursor(q.cursor), limit: limit + 1 });
        return { ...page(rows.map(toServiceView), limit, (s) => s.id), total };
      },
    },
    GetService: {
      audit: { ...AUDIT_ACTIONS.serviceRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(ServicePath, input.params);
        const row = await findServiceRow(deps.db, id);
        if (!row) throw new ServiceError('SERVICE_NOT_FOUND');
        if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
        return toServiceView(row);
      },
    },
    ListEventTypes: {
      audit: { ...AUDIT_ACTIONS.serviceList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListEventTypesQuery, input.query);
        await checkProvider(caller, q.providerId);
        const limit = q.limit ?? 50;
        const filter = { organizationId: caller.organizationId, providerId: q.providerId };
        const total = await countServices(deps.db, filter);
        const rows = await listServiceRows(deps.db, filter, { after: decodeCursor(q.cursor), limit: limit + 1 });
        return {
          ...page(
            rows.map((r) => toEventTypeV1(toServiceView(r))),
            limit,
            (e) => e.id,
          ),
          total,
        };
      },
    },
  };
}
