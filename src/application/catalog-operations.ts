import { ServiceError, validationError } from '../errors/service-error.js';
import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CreateServiceBody,
  ListEventTypesQuery,
  ListServicesQuery,
  ServicePath,
  UpdateServiceBody,
} from '../contract/schemas/service.js';
import { serviceSlug } from '../domain/service-slug.js';
import { newId } from '../persistence/new-id.js';
import { bumpGraphVersion } from '../persistence/organization-repository.js';
import { queueProviderTime } from './waitlist/queue-provider-time.js';
import {
  countServices,
  findServiceRow,
  insertServiceRow,
  listServiceRows,
  removeServiceRow,
  toServiceView,
  updateServiceRow,
  type ServiceDoc,
  type ServiceView,
} from '../persistence/service-repository.js';
import type { Queryable } from '../persistence/database.js';
import type { AppDeps } from './app-deps.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { providerOfCaller } from './provider-of-caller.js';
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

/** Reads a service of the caller's organization: 404 when unknown or removed, 403 when another organization's. */
async function serviceOfCaller(
  db: Queryable,
  caller: Caller,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ServiceView> {
  const row = await findServiceRow(db, id, opts);
  if (!row) throw new ServiceError('SERVICE_NOT_FOUND');
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return toServiceView(row);
}

/** The stored fields of a service view. */
function serviceDoc(v: ServiceView): ServiceDoc {
  return {
    title: v.title,
    duration: v.duration,
    price: v.price,
    currency: v.currency,
    modality: v.modality,
    slotIntervalMinutes: v.slotIntervalMinutes,
    minimumNoticeMinutes: v.minimumNoticeMinutes,
    bufferBeforeMinutes: v.bufferBeforeMinutes,
    bufferAfterMinutes: v.bufferAfterMinutes,
  };
}

/**
 * Applies a PATCH body to a service's fields: null clears price, currency or modality, and sets the slot interval
 * back to the duration; a slot interval that equalled the duration follows a new one. 400 on `currency` when the
 * result has a price without a currency (as on create).
 */
function patchServiceDoc(cur: ServiceDoc, body: ReturnType<typeof UpdateServiceBody.parse>): ServiceDoc {
  const duration = body.duration ?? cur.duration;
  const followsDuration = cur.slotIntervalMinutes === cur.duration;
  const next: ServiceDoc = {
    title: body.title ?? cur.title,
    duration,
    price: body.price === undefined ? cur.price : body.price,
    currency: body.currency === undefined ? cur.currency : body.currency,
    modality: body.modality === undefined ? cur.modality : body.modality,
    slotIntervalMinutes:
      body.slotIntervalMinutes === undefined
        ? followsDuration
          ? duration
          : cur.slotIntervalMinutes
        : (body.slotIntervalMinutes ?? duration),
    minimumNoticeMinutes: body.minimumNoticeMinutes ?? cur.minimumNoticeMinutes,
    bufferBeforeMinutes: body.bufferBeforeMinutes ?? cur.bufferBeforeMinutes,
    bufferAfterMinutes: body.bufferAfterMinutes ?? cur.bufferAfterMinutes,
  };
  if (next.price !== null && next.currency === null)
    throw validationError([
      {
        field: 'currency',
        code: 'INVALID',
        message:
          body.currency === null ? 'cannot be cleared while the service has a price' : 'is required when price is set',
      },
    ]);
  return next;
}

/** 409 for a title whose slug the provider's live services already have (the slug is derived from the title). */
function slugTaken(providerId: string, slug: string): ServiceError {
  return new ServiceError(
    'DUPLICATE_EXTERNAL_ID',
    `Provider ${providerId} already has a service with the slug "${slug}"; the slug comes from the title, so choose a different title.`,
    { field: 'title' },
  );
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
          if (!row) throw slugTaken(provider.id, slug);
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
        return serviceOfCaller(deps.db, caller, id);
      },
    },
    UpdateService: {
      audit: { ...AUDIT_ACTIONS.serviceUpdate, kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id } = parseInput(ServicePath, input.params);
        // Tenancy and existence come before body validation, so a foreign id is 403 whatever the body says.
        await serviceOfCaller(deps.db, caller, id);
        const body = parseInput(UpdateServiceBody, input.body ?? {});
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const cur = await serviceOfCaller(tx, caller, id, { forUpdate: true });
          const next = patchServiceDoc(serviceDoc(cur), body);
          if (JSON.stringify(next) === JSON.stringify(serviceDoc(cur))) return cur;
          const slug = serviceSlug(next.title);
          const row = await updateServiceRow(tx, id, slug, next, now);
          if (!row) throw slugTaken(cur.providerId, slug);
          const view = toServiceView(row);
          await bumpGraphVersion(tx, caller.organizationId);
          // A shorter session, interval, notice or buffer may fit waiting entries into the provider's time.
          await queueProviderTime(tx, { ...caller, providerId: view.providerId, now });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.serviceUpdate,
            resourceId: id,
            before: cur,
            after: view,
          });
          return view;
        });
      },
    },
    DeleteService: {
      audit: { ...AUDIT_ACTIONS.serviceDelete, kind: 'write' },
      async handler(caller, input) {
        const { id } = parseInput(ServicePath, input.params);
        await serviceOfCaller(deps.db, caller, id);
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const cur = await serviceOfCaller(tx, caller, id, { forUpdate: true });
          // Soft: bookings keep naming the row; it is no longer found, listed or offered (service-repository.ts).
          await removeServiceRow(tx, id, now);
          await bumpGraphVersion(tx, caller.organizationId);
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.serviceDelete,
            resourceId: id,
            before: cur,
            after: null,
          });
          return { ...cur, deleted: true };
        });
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
