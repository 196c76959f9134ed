import { ServiceError } from '../../errors/service-error.js';
import type { Queryable } from '../../persistence/database.js';
import type { DeliveryRow } from '../../persistence/webhook-repository.js';
import type { OrganizationCache } from '../../application/organization-cache.js';
import type { Caller } from '../../application/caller.js';
import { deliveryOfCaller } from './delivery-of-caller.js';

/** Plans entitled to replays (CONTRACT part 6). A plan slug the service does not know is treated as not entitled. */
const REPLAY_PLANS: ReadonlySet<string> = new Set(['launch', 'scale', 'enterprise']);

/** What the replay checks read. */
export interface ReplayableDeps {
  db: Queryable;
  organizations: OrganizationCache;
}

/**
 * What both replays check once their request is valid, in this order: a live key (test-mode deliveries are never
 * sent), a plan of `launch` or higher, the delivery (404 / 403) and that it is not `suppressed` (422
 * DELIVERY_NOT_REPLAYABLE).
 */
export async function replayableDelivery(deps: ReplayableDeps, caller: Caller, id: string): Promise<DeliveryRow> {
  if (caller.mode !== 'live')
    throw new ServiceError(
      'LIVE_KEY_REQUIRED',
      'Replays send webhooks, which test keys never do: use a service_live_ key.',
    );
  const org = await deps.organizations.find(caller.organizationId);
  const plan = String(org?.settings.plan ?? 'free');
  if (!REPLAY_PLANS.has(plan))
    throw new ServiceError(
      'PLAN_UPGRADE_REQUIRED',
      `Webhook replay needs the launch plan or higher; this organization is on "${plan}".`,
    );
  const d = await deliveryOfCaller(deps.db, caller, id);
  if (d.status === 'suppressed') throw new ServiceError('DELIVERY_NOT_REPLAYABLE');
  return d;
}
