import type {
  GetOrganizationOverviewRequest,
  GetOrganizationOverviewResponse,
} from '../../gen/scheduling/v1/organization_service.js';
import { OrganizationPath } from '../../contract/schemas/organization.js';
import type { Database } from '../../persistence/database.js';
import { readOrganizationOverviewCounts } from '../../persistence/organization-overview-counts.js';
import type { OrganizationCache } from '../../application/organization-cache.js';
import type { Caller } from '../../application/caller.js';
import { pathId } from '../request-problems.js';
import { organizationMessage } from '../messages/organization-message.js';
import { visibleOrganization } from './visible-organization.js';

/** What GetOrganizationOverview uses. */
export interface GetOrganizationOverviewDeps {
  db: Database;
  clock: () => Date;
  organizations: OrganizationCache;
}

/**
 * GetOrganizationOverview: an organization the caller may see with live counts of what it holds, computed when asked
 * (`generated_at`); every booking and delivery status is counted, 0 when there is none.
 */
export async function getOrganizationOverview(
  deps: GetOrganizationOverviewDeps,
  caller: Caller,
  request: GetOrganizationOverviewRequest,
): Promise<GetOrganizationOverviewResponse> {
  const id = pathId(OrganizationPath.shape.id, request.id);
  const organization = await visibleOrganization(deps.organizations, caller, id);
  const now = deps.clock();
  const c = await readOrganizationOverviewCounts(deps.db, organization.id, now);
  return {
    organizationOverview: {
      organization: organizationMessage(organization),
      counts: {
        providers: { active: c.providers.active, total: c.providers.total },
        services: c.services,
        bookings: {
          pending: c.bookings.pending ?? 0,
          confirmed: c.bookings.confirmed ?? 0,
          cancelled: c.bookings.cancelled ?? 0,
          completed: c.bookings.completed ?? 0,
          rescheduled: c.bookings.rescheduled ?? 0,
        },
        resolutionsLast24h: c.resolutionsLast24h,
        activeHolds: c.activeHolds,
        manualReviewOpen: c.manualReviewOpen,
        webhookDeliveries: {
          pending: c.webhookDeliveries.pending ?? 0,
          delivered: c.webhookDeliveries.delivered ?? 0,
          failed: c.webhookDeliveries.failed ?? 0,
          deadLettered: c.webhookDeliveries.dead_lettered ?? 0,
          suppressed: c.webhookDeliveries.suppressed ?? 0,
        },
        auditEvents: c.auditEvents,
      },
      generatedAt: now,
    },
  };
}
