import test from 'ava';
import { credentials, status } from '@grpc/grpc-js';
import {
  WebhookServiceClient,
  type GetWebhookDeliveryResponse,
  type GetWebhookResponse,
  type ListWebhookDeliveriesResponse,
  type QueueWebhookDeliveryReplayResponse,
  type ReplayWebhookDeliveryResponse,
  type TestWebhookResponse,
  type UpdateWebhookResponse,
} from '../../src/gen/scheduling/v1/webhook_service.js';
import { DeliveryStatus } from '../../src/gen/scheduling/v1/resources.js';
import { getWebhook } from '../../src/api/webhook-service/get-webhook.js';
import { updateWebhook } from '../../src/api/webhook-service/update-webhook.js';
import { listWebhookDeliveries } from '../../src/api/webhook-service/list-webhook-deliveries.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';
import { restOfResponse } from '../helpers/typed-messages.js';
import { assertRefusals, bearer, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * WebhookService on its typed messages (src/api/webhook-service/): typed answers from an internal gRPC client (the
 * secret only on the set-up, enums for delivery statuses, instants as Dates), refusals with the contract's code as
 * ErrorInfo reason and the field, implementations called with their deps alone, and REST answers equal to the typed
 * ones for a read and a write.
 */

let svc: TestService;
let receiver: WebhookReceiver;
let webhooks: WebhookServiceClient;
/** A platform_live key (the test service's own platform key is a test key). */
let liveKey: string;
/** An organization on the launch plan, its webhook pointed at the receiver. */
let orgId: string;
/** An organization on the free plan, without a webhook. */
let freeOrgId: string;
let rest: ReturnType<typeof client>;

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

test.before(async () => {
  receiver = await startWebhookReceiver();
  svc = await startTestService({ env: { WEBHOOK_ALLOW_INSECURE_URLS: '1' } });
  liveKey = await livePlatformKey(svc);
  webhooks = new WebhookServiceClient(svc.grpcTarget, credentials.createInsecure());
  const newOrg = async (externalId: string, plan: string) => {
    const org = await client(svc.url, liveKey).post('/api/v2/organizations', {
      externalId,
      name: externalId,
      settings: { plan },
    });
    if (org.status !== 200) throw new Error(`organization create failed: ${JSON.stringify(org.body)}`);
    return org.body.id as string;
  };
  orgId = await newOrg('twh-launch', 'launch');
  freeOrgId = await newOrg('twh-free', 'free');
  rest = client(svc.url, liveKey, { 'service-organization-id': orgId });
});
test.after.always(async () => {
  webhooks?.close();
  await svc?.stop();
  await receiver?.stop();
});

const metadata = (key = liveKey, org = orgId) => bearer(key, { 'service-organization-id': org });

type Method =
  | 'getWebhook'
  | 'updateWebhook'
  | 'testWebhook'
  | 'listWebhookDeliveries'
  | 'getWebhookDelivery'
  | 'replayWebhookDelivery'
  | 'queueWebhookDeliveryReplay';

function unary<Res>(method: Method, req: object, md = metadata()): Promise<Res> {
  return unaryCall(webhooks, method, req, md);
}

/** Polls the typed delivery list until a delivered delivery shows (the dispatcher sends in the background). */
async function firstDelivered(): Promise<ListWebhookDeliveriesResponse> {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await unary<ListWebhookDeliveriesResponse>('listWebhookDeliveries', {
      deliveryStatus: DeliveryStatus.DELIVERY_STATUS_DELIVERED,
    });
    if ((r.deliveryList?.deliveries ?? []).length > 0) return r;
    if (Date.now() > until) throw new Error(`no delivered delivery: ${JSON.stringify(r)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

test.serial(
  'the typed calls: set-up with its secret once, read, test send, delivery log and both replays',
  async (t) => {
    const created = await unary<UpdateWebhookResponse>('updateWebhook', {
      url: receiver.url,
      events: ['professional.created', 'professional.created'],
    });
    t.regex(created.updatedWebhook!.secret!, SECRET);
    t.deepEqual(created.updatedWebhook!.events, ['professional.created'], 'repeats kept once');
    t.true(created.updatedWebhook!.active);
    t.true(created.updatedWebhook!.createdAt instanceof Date);

    const read = await unary<GetWebhookResponse>('getWebhook', {});
    t.deepEqual(read.webhook, {
      url: receiver.url,
      events: ['professional.created'],
      active: true,
      createdAt: created.updatedWebhook!.createdAt,
    });
    t.false(JSON.stringify(read).includes(created.updatedWebhook!.secret!.slice(6, 30)), 'never the secret again');

    const sent = await unary<TestWebhookResponse>('testWebhook', {});
    t.like(sent.webhookTestResult, { delivered: true, statusCode: 200 });
    const test = (await receiver.waitFor(1, (r) => r.body?.type === 'webhook.test'))[0]!;
    t.is(test.body.organizationId, orgId);

    const p = await rest.post('/api/v2/providers', { externalId: 'twh-1', displayName: 'Dr. Typed' });
    t.is(p.status, 200, JSON.stringify(p.body));
    const list = await firstDelivered();
    t.is(list.deliveryList!.total, 1);
    t.is(list.deliveryList!.nextPageToken, undefined);
    const d = list.deliveryList!.deliveries![0]!;
    t.like(d, { event: 'professional.created', deliveryStatus: DeliveryStatus.DELIVERY_STATUS_DELIVERED, attempt: 1 });
    t.is(d.statusCode, 200);
    t.is(d.success, true);
    t.is(d.nextAttemptAt, undefined);
    t.true(d.timestamp instanceof Date);

    const detail = await unary<GetWebhookDeliveryResponse>('getWebhookDelivery', { id: d.id });
    t.like(detail.deliveryDetail, { id: d.id, eventId: d.eventId, attempt: 1 });
    t.deepEqual(
      detail.deliveryDetail!.attempts!.map((a) => [a.attempt, a.statusCode, a.success, a.manual, a.error]),
      [[1, 200, true, false, undefined]],
    );

    const replayed = await unary<ReplayWebhookDeliveryResponse>('replayWebhookDelivery', { id: d.id });
    t.like(replayed.replayResult, { delivered: true, statusCode: 200, attempt: 2 });
    t.true(replayed.replayResult!.replayedAt instanceof Date);
    const queued = await unary<QueueWebhookDeliveryReplayResponse>('queueWebhookDeliveryReplay', { deliveryId: d.id });
    t.deepEqual(queued.queuedReplay, { deliveryId: d.id, status: 'pending', attempt: 3 });
    const audit = await rest.get('/api/v2/audit-events?action=webhook_delivery.replay');
    t.is(audit.body.data.length, 2, 'both replays audited');
  },
);

const refusals: Refusal[] = [
  {
    name: 'a test key changing the configuration',
    call: () => unary('updateWebhook', { url: 'http://127.0.0.1:9/x', events: ['*'] }, metadata(svc.platformKey)),
    code: status.PERMISSION_DENIED,
    reason: 'LIVE_KEY_REQUIRED',
  },
  {
    name: 'an event type the contract does not know, named by its index',
    call: () => unary('updateWebhook', { url: 'http://127.0.0.1:9/x', events: ['booking.confirmed', 'nope'] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'events.1',
  },
  {
    name: 'no event types',
    call: () => unary('updateWebhook', { url: 'http://127.0.0.1:9/x', events: [] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'events',
  },
  {
    name: 'no url',
    call: () => unary('updateWebhook', { events: ['*'] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'url',
  },
  {
    name: 'a url the outbound guard refuses (another scheme)',
    call: () => unary('updateWebhook', { url: 'ftp://127.0.0.1/x', events: ['*'] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'url',
  },
  {
    name: 'a test send with a test key',
    call: () => unary('testWebhook', {}, metadata(svc.platformKey)),
    code: status.PERMISSION_DENIED,
    reason: 'LIVE_KEY_REQUIRED',
  },
  {
    name: 'no configuration yet',
    call: () => unary('getWebhook', {}, metadata(liveKey, freeOrgId)),
    code: status.NOT_FOUND,
    reason: 'WEBHOOK_NOT_CONFIGURED',
  },
  {
    name: 'a page size out of range, named as REST names it',
    call: () => unary('listWebhookDeliveries', { pageSize: 501 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
  {
    name: 'an event filter the contract does not know',
    call: () => unary('listWebhookDeliveries', { event: 'booking.exploded' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'event',
  },
  {
    name: 'a page token this service did not issue',
    call: () => unary('listWebhookDeliveries', { pageToken: '!!!' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'cursor',
  },
  {
    name: 'no delivery id',
    call: () => unary('getWebhookDelivery', { id: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'id',
  },
  {
    name: 'an unknown delivery',
    call: () => unary('getWebhookDelivery', { id: 'whd_nope' }),
    code: status.NOT_FOUND,
    reason: 'DELIVERY_NOT_FOUND',
  },
  {
    name: 'a queued replay without its delivery id, named as the route names it',
    call: () => unary('queueWebhookDeliveryReplay', { deliveryId: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'deliveryId',
  },
  {
    name: 'a replay with a test key',
    call: () => unary('replayWebhookDelivery', { id: 'whd_nope' }, metadata(svc.platformKey)),
    code: status.PERMISSION_DENIED,
    reason: 'LIVE_KEY_REQUIRED',
  },
  {
    name: 'a replay below the launch plan',
    call: () => unary('queueWebhookDeliveryReplay', { deliveryId: 'whd_nope' }, metadata(liveKey, freeOrgId)),
    code: status.PERMISSION_DENIED,
    reason: 'PLAN_UPGRADE_REQUIRED',
  },
  {
    name: 'a replay of an unknown delivery',
    call: () => unary('replayWebhookDelivery', { id: 'whd_nope' }),
    code: status.NOT_FOUND,
    reason: 'DELIVERY_NOT_FOUND',
  },
];
assertRefusals(test, 'a typed WebhookService request is refused with ErrorInfo', refusals);

test('the implementations are functions of their dependencies, the caller and the typed request', async (t) => {
  const { db, clock } = svc.service.deps;
  const caller = { requestId: 'req_direct', organizationId: freeOrgId, mode: 'live' } as Caller;
  const notConfigured = await t.throwsAsync(() => getWebhook({ db }, caller, {}));
  t.like(notConfigured, { code: 'WEBHOOK_NOT_CONFIGURED' });
  // The outbound guard judges the URL with the rules the deps give: the production ones refuse a loopback target.
  const strict = { db, clock, config: { outboundAllowInsecureUrls: false } };
  const guarded = await t.throwsAsync(() =>
    updateWebhook(strict, caller, { url: 'https://127.0.0.1/hook', events: ['*'] }),
  );
  t.true(guarded instanceof ServiceError);
  t.like(guarded, { code: 'VALIDATION_ERROR', field: 'url' });
  t.is((guarded as ServiceError).details?.[0]?.code, 'FORBIDDEN_ADDRESS');
  t.like(await t.throwsAsync(() => getWebhook({ db }, caller, {})), { code: 'WEBHOOK_NOT_CONFIGURED' }, 'not stored');
  // A status the typed API does not know is refused on `status`, as REST names the filter.
  const badStatus = await t.throwsAsync(() =>
    listWebhookDeliveries({ db }, caller, { deliveryStatus: 'UNRECOGNIZED' as DeliveryStatus }),
  );
  t.like(badStatus, { code: 'VALIDATION_ERROR', field: 'status' });
  const empty = await listWebhookDeliveries({ db }, caller, {});
  t.deepEqual(empty, { deliveryList: { deliveries: [], total: 0, nextPageToken: undefined } });
});

test.serial('REST answers what the typed API answers: a write (PUT /webhooks) and a read (a delivery)', async (t) => {
  const body = { url: receiver.url, events: ['professional.created', 'booking.confirmed'], active: true };
  const typed = await unary<UpdateWebhookResponse>('updateWebhook', body);
  t.is(typed.updatedWebhook!.secret, undefined, 'no secret without a rotation');
  const put = await rest.put('/api/v2/webhooks', body);
  t.is(put.status, 200, JSON.stringify(put.body));
  t.deepEqual(put.body, restOfResponse('UpdateWebhook', typed));
  t.false('secret' in put.body);

  const list = await firstDelivered();
  const id = list.deliveryList!.deliveries![0]!.id!;
  const typedDetail = await unary<GetWebhookDeliveryResponse>('getWebhookDelivery', { id });
  const restDetail = await rest.get(`/api/v2/webhooks/deliveries/${id}`);
  t.is(restDetail.status, 200);
  t.deepEqual(restDetail.body, restOfResponse('GetWebhookDelivery', typedDetail));
  t.deepEqual(
    (await rest.get('/api/v2/webhooks/deliveries?status=delivered')).body,
    restOfResponse('ListWebhookDeliveries', list),
  );
});
