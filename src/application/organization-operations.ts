import { ServiceError } from '../errors/service-error.js';
import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CreateOrganizationBody,
  ListOrganizationsQuery,
  OrganizationPath,
  UpdateOrganizationBody,
} from '../contract/schemas/organization.js';
import {
  findOrganization,
  insertOrganization,
  listOrganizations,
  updateOrganization,
  WAITLIST_OFFER_TTL_DEFAULT,
} from '../persistence/organization-repository.js';
import { readOrganizationOverviewCounts } from '../persistence/organization-overview-counts.js';
import { newId } from '../persistence/new-id.js';
import type { AppDeps } from './app-deps.js';
import type { OrganizationCache } from './organization-cache.js';
import { requirePlatformKey } from './authenticate.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { recordAudit } from './record-audit.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** Reads an organization the caller may see: its platform's (platform key) or its own (organization key). */
async function visibleOrganization(deps: OrganizationDeps, caller: Caller, id: string) {
  const org = await deps.organizations.find(id);
  if (!org) throw new ServiceError('ORGANIZATION_NOT_FOUND');
  if (org.platformId !== caller.platformId || (!caller.isPlatformKey && org.id !== caller.organizationId))
    throw new ServiceError('FORBIDDEN');
  return org;
}

/** OrganizationService operations (CONTRACT part 2). */
/** What the organization operations use. */
type OrganizationDeps = AppDeps & { organizations: OrganizationCache };

export function createOrganizationOperations(deps: OrganizationDeps): OperationTable {
  return {
    CreateOrganization: {
      audit: { ...AUDIT_ACTIONS.organizationCreate, kind: 'write' },
      async handler(caller, input) {
        requirePlatformKey(caller);
        const body = parseInput(CreateOrganizationBody, input.body);
        const now = deps.clock();
        const id = newId('org', now.getTime());
        const settings = {
          plan: body.settings?.plan ?? 'free',
          allowUnverifiable: body.settings?.allowUnverifiable ?? false,
          timezone: body.settings?.timezone ?? null,
          waitlistOfferTtlSeconds: body.settings?.waitlistOfferTtlSeconds ?? WAITLIST_OFFER_TTL_DEFAULT,
        };
        return deps.db.transaction(async (tx) => {
          const org = await insertOrganization(tx, {
            id,
            platformId: caller.platformId,
            externalId: body.externalId,
            name: body.name,
            settings,
            now,
          });
          if (!org)
            throw new ServiceError('DUPLICATE_EXTERNAL_ID', 'An organization with this externalId already exists.', {
              field: 'externalId',
            });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.organizationCreate,
            resourceId: id,
            after: org,
            organizationId: id,
          });
          return org;
        });
      },
    },
    ListOrganizations: {
      audit: { ...AUDIT_ACTIONS.organizationList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListOrganizationsQuery, input.query);
        const limit = q.limit ?? 50;
        const after = decodeCursor(q.cursor) ?? '';
        const rows = await listOrganizations(
          deps.db,
          caller.isPlatformKey ? { platformId: caller.platformId } : { organizationId: caller.organizationId },
          { after, limit: limit + 1 },
        );
        return page(rows, limit, (o) => o.id);
      },
    },
    GetOrganization: {
      audit: { ...AUDIT_ACTIONS.organizationRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(OrganizationPath, input.params);
        return visibleOrganization(deps, caller, id);
      },
    },
    GetOrganizationOverview: {
      audit: { ...AUDIT_ACTIONS.organizationOverview, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(OrganizationPath, input.params);
        const organization = await visibleOrganization(deps, caller, id);
        const now = deps.clock();
        const c = await readOrganizationOverviewCounts(deps.db, id, now);
        const byStatus = (counts: Record<string, number>, statuses: readonly string[]) =>
          Object.fromEntries(statuses.map((s) => [s, counts[s] ?? 0]));
        return {
          organization,
          counts: {
            ...c,
            bookings: byStatus(c.bookings, ['pending', 'confirmed', 'cancelled', 'completed', 'rescheduled']),
            webhookDeliveries: byStatus(c.webhookDeliveries, [
              'pending',
              'delivered',
              'failed',
              'dead_lettered',
              'suppressed',
            ]),
          },
          generatedAt: now.toISOString(),
        };
      },
    },
    UpdateOrganization: {
      audit: { ...AUDIT_ACTIONS.organizationUpdate, kind: 'write' },
      async handler(caller, input) {
        const { id } = parseInput(OrganizationPath, input.params);
        const before = await visibleOrganization(deps, caller, id);
        requirePlatformKey(caller);
        const body = parseInput(UpdateOrganizationBody, input.body);
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const cur = await findOrganization(tx, id, { forUpdate: true });
          if (!cur) throw new ServiceError('ORGANIZATION_NOT_FOUND');
          const settings = {
            ...cur.settings,
            ...Object.fromEntries(Object.entries(body.settings ?? {}).filter(([, v]) => v !== undefined)),
          };
          const after = await updateOrganization(tx, id, { name: body.name ?? cur.name, settings, now });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.organizationUpdate,
            resourceId: id,
            before,
            after,
            organizationId: id,
          });
          return after;
        });
      },
    },
  };
}
