import type {
  ListWebhookDeliveriesRequest,
  ListWebhookDeliveriesResponse,
} from '../../gen/scheduling/v1/webhook_service.js';
import { DeliveryStatus } from '../../gen/scheduling/v1/resources.js';
import { ListDeliveriesQuery } from '../../contract/schemas/webhook.js';
import { DELIVERY_STATUSES } from '../../contract/webhook-vocabulary.js';
import { readOneSnapshot, type Database } from '../../persistence/database.js';
import { countDeliveries, listDeliveries, type DeliveryRow } from '../../persistence/webhook-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { DELIVERY_STATUS, deliveryMessage } from '../messages/webhook-message.js';

/** What ListWebhookDeliveries uses. */
export interface ListWebhookDeliveriesDeps {
  db: Database;
}

/** The delivery status a request names; UNSPECIFIED: not given. */
const STATUS_OF = new Map<DeliveryStatus, DeliveryRow['status']>(
  Object.entries(DELIVERY_STATUS).map(([rest, typed]) => [typed, rest as DeliveryRow['status']]),
);

/**
 * ListWebhookDeliveries: the organization's delivery records newest first (keyset on (created_at, id)), a page at a
 * time, optionally of one `status` or `event` type, with `total` counting every match over all pages.
 */
export async function listWebhookDeliveries(
  deps: ListWebhookDeliveriesDeps,
  caller: Caller,
  request: ListWebhookDeliveriesRequest,
): Promise<ListWebhookDeliveriesResponse> {
  const problems = new RequestProblems();
  const statusAsked = request.deliveryStatus ?? DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED;
  const status = STATUS_OF.get(statusAsked);
  if (statusAsked !== DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED && status === undefined)
    problems.add('status', `Invalid option: expected one of ${DELIVERY_STATUSES.map((s) => `"${s}"`).join('|')}`);
  const eventType = problems.check('event', ListDeliveriesQuery.shape.event, request.event);
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const filter = { organizationId: caller.organizationId, status, eventType };
  // One snapshot for both, so `total` counts the page's rows (two connections could each see a different moment).
  const { total, rows } = await readOneSnapshot(deps.db, async (tx) => ({
    total: await countDeliveries(tx, filter),
    rows: await listDeliveries(tx, filter, { afterId: paging.position(), limit: paging.size + 1 }),
  }));
  const p = pageMessage(rows, paging.size, (d) => d.id, deliveryMessage);
  return { deliveryList: { deliveries: p.data, total, nextPageToken: p.nextPageToken } };
}
