import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, status } from '@grpc/grpc-js';
import {
  CareServiceClient,
  type CancelWaitlistEntryResponse,
  type CreateContinuityResponse,
  type CreateWaitlistEntryResponse,
  type ListContinuityResponse,
  type ListManualReviewResponse,
  type ListWaitlistEntriesResponse,
  type ResolveManualReviewResponse,
} from '../../src/gen/scheduling/v1/care_service.js';
import { DayPart, ManualReviewStatus, WaitlistStatus } from '../../src/gen/scheduling/v1/resources.js';
import { careRoutes } from '../../src/contract/routes/care-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { listManualReview } from '../../src/api/care-service/list-manual-review.js';
import { createContinuity } from '../../src/api/care-service/create-continuity.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * CareService on its typed messages (src/api/care-service/): typed answers for continuity, the waitlist and the
 * manual-review queue, refusals with the contract's code as ErrorInfo reason and the field as REST names it, an
 * implementation called with its deps alone, and REST answers equal to the typed ones.
 */

let svc: TestService;
let care: CareServiceClient;
let org: { id: string; platformId: string };
let orgKey: string;
let providerId: string;
let serviceId: string;
test.before(async () => {
  svc = await startTestService();
  care = new CareServiceClient(svc.grpcTarget, credentials.createInsecure());
  const p = client(svc.url, svc.platformKey);
  org = (await p.post('/api/v2/organizations', { externalId: `tcs-${randomUUID().slice(0, 8)}`, name: 'Care' })).body;
  orgKey = (await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'k' })).body
    .key;
  const inOrg = client(svc.url, svc.platformKey, { 'service-organization-id': org.id });
  providerId = (await inOrg.post('/api/v2/providers', { externalId: 'p1', displayName: 'Dr. One' })).body.id;
  serviceId = (await inOrg.post('/api/v2/services', { providerId, title: 'Intake', duration: 50 })).body.id;
});
test.after.always(async () => {
  care?.close();
  await svc?.stop();
});

function unary<Res>(method: string, req: object, key = orgKey): Promise<Res> {
  return unaryCall(care, method, req, bearer(key));
}

const route = (rpc: string) => careRoutes.find((r) => r.rpc === rpc)!;

test('continuity over typed calls: an upsert keeps its id, lists by client', async (t) => {
  const seen = new Date('2026-02-01T07:30:00.000Z');
  const made = (
    await unary<CreateContinuityResponse>('createContinuity', { providerId, clientRef: 'client-1', lastSeenAt: seen })
  ).continuityRecord!;
  t.regex(made.id!, /^cty_/);
  t.deepEqual(made.lastSeenAt, seen);
  const again = (await unary<CreateContinuityResponse>('createContinuity', { providerId, clientRef: 'client-1' }))
    .continuityRecord!;
  t.deepEqual(again, made, 'without last_seen_at the record keeps its own');
  const fresh = (await unary<CreateContinuityResponse>('createContinuity', { providerId, clientRef: 'client-2' }))
    .continuityRecord!;
  t.is(fresh.lastSeenAt, undefined, 'never seen: unset');
  const listed = await unary<ListContinuityResponse>('listContinuity', { clientRef: 'client-1' });
  t.deepEqual(listed.data, [made]);
  t.false(listed.hasMore);
});

test('the waitlist over typed calls: create with constraints and preferences, list by status, cancel twice', async (t) => {
  const made = (
    await unary<CreateWaitlistEntryResponse>('createWaitlistEntry', {
      serviceId,
      customer: { name: 'C', email: 'c@example.com' },
      constraints: { languageCodes: { anyOf: ['ES', 'es'] }, acceptsNewClients: true },
      preferences: { preferredDayParts: [DayPart.DAY_PART_MORNING], clientRef: 'client-1' },
    })
  ).waitlistEntry!;
  t.regex(made.id!, /^wl_/);
  t.is(made.waitlistStatus, WaitlistStatus.WAITLIST_STATUS_WAITING);
  t.deepEqual(made.customer, { name: 'C', email: 'c@example.com' });
  t.deepEqual(
    made.constraints,
    { languageCodes: { anyOf: ['es'] }, acceptsNewClients: true },
    'normalized as REST normalizes them',
  );
  t.deepEqual(made.preferences, { dayParts: ['morning'], clientRef: 'client-1' }, 'stored in their REST spelling');
  t.is(made.offer, undefined);
  t.is(made.offersMade, 0);
  t.is(made.cancelledAt, undefined);

  const waiting = await unary<ListWaitlistEntriesResponse>('listWaitlistEntries', {
    waitlistStatus: WaitlistStatus.WAITLIST_STATUS_WAITING,
  });
  t.true(waiting.data!.some((e) => e.id === made.id));

  const cancelled = (await unary<CancelWaitlistEntryResponse>('cancelWaitlistEntry', { id: made.id })).waitlistEntry!;
  t.is(cancelled.waitlistStatus, WaitlistStatus.WAITLIST_STATUS_CANCELLED);
  t.true(cancelled.cancelledAt instanceof Date);
  const again = (await unary<CancelWaitlistEntryResponse>('cancelWaitlistEntry', { id: made.id })).waitlistEntry!;
  t.deepEqual(again, cancelled, 'a cancelled entry answers as it is');
});

test.serial('the manual-review queue over typed calls: open entries listed, resolved once', async (t) => {
  const at = new Date('2026-01-10T12:00:00.000Z');
  await svc.service.deps.db.query(
    `INSERT INTO manual_review_entries (organization_id, provider_id, platform_id, reasons, status, first_seen_at, last_seen_at) VALUES ($1,$2,$3,$4,'open',$5,$5)`,
    [
      org.id,
      providerId,
      org.platformId,
      JSON.stringify([{ code: 'LICENSE_MISSING', field: 'licenseRegionCodes', detail: 'x' }]),
      at,
    ],
  );
  const open = await unary<ListManualReviewResponse>('listManualReview', {});
  t.deepEqual(open.data, [
    {
      providerId,
      displayName: 'Dr. One',
      reasons: [{ code: 'LICENSE_MISSING', field: 'licenseRegionCodes', detail: 'x' }],
      firstSeenAt: at,
      lastSeenAt: at,
      manualReviewStatus: ManualReviewStatus.MANUAL_REVIEW_STATUS_OPEN,
      resolvedAt: undefined,
    },
  ]);
  const resolved = (await unary<ResolveManualReviewResponse>('resolveManualReview', { providerId })).manualReviewEntry!;
  t.is(resolved.manualReviewStatus, ManualReviewStatus.MANUAL_REVIEW_STATUS_RESOLVED);
  t.true(resolved.resolvedAt instanceof Date);
  const listed = await unary<ListManualReviewResponse>('listManualReview', {
    manualReviewStatus: ManualReviewStatus.MANUAL_REVIEW_STATUS_RESOLVED,
  });
  t.deepEqual(listed.data, [resolved]);
  // REST reads the same entry as the typed answer carried it.
  const rest = await client(svc.url, orgKey).get('/api/v2/manual-review?status=resolved');
  t.deepEqual(responseMessageOf(route('ListManualReview'), rest.body).data, listed.data);
});

const refusals: Refusal[] = [
  {
    name: 'a continuity without a client reference',
    call: () => unary('createContinuity', { providerId: 'prv_x' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'clientRef',
  },
  {
    name: 'a continuity of an unknown provider, on providerId',
    call: () => unary('createContinuity', { providerId: 'prv_unknown', clientRef: 'x' }),
    code: status.NOT_FOUND,
    reason: 'PROVIDER_NOT_FOUND',
    field: 'providerId',
  },
  {
    name: 'a waitlist entry without a customer',
    call: () => unary('createWaitlistEntry', { serviceId: 'svc_x' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'customer',
  },
  {
    name: "a waitlist customer's e-mail that is none",
    call: () => unary('createWaitlistEntry', { serviceId: 'svc_x', customer: { name: 'C', email: 'nope' } }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'customer.email',
  },
  {
    name: 'a waitlist entry of an unknown service',
    call: () => unary('createWaitlistEntry', { serviceId: 'svc_unknown', customer: { name: 'C', email: 'c@x.io' } }),
    code: status.NOT_FOUND,
    reason: 'SERVICE_NOT_FOUND',
    field: 'serviceId',
  },
  {
    name: 'an unknown waitlist entry',
    call: () => unary('cancelWaitlistEntry', { id: 'wl_unknown' }),
    code: status.NOT_FOUND,
    reason: 'WAITLIST_ENTRY_NOT_FOUND',
  },
  {
    name: 'a page size out of range, named as REST names it',
    call: () => unary('listWaitlistEntries', { pageSize: 0 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
  {
    name: 'an empty provider id on resolve',
    call: () => unary('resolveManualReview', { providerId: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'providerId',
  },
];
assertRefusals(test, 'a typed CareService request is refused with ErrorInfo', refusals);

test.serial(
  'CreateContinuity and ListManualReview are functions of their dependencies, the caller and the typed request',
  async (t) => {
    const { db } = svc.service.deps;
    const caller = {
      requestId: 'req_direct',
      keyId: 'key_direct',
      keyType: 'organization_test',
      mode: 'test',
      platformId: org.platformId,
      organizationId: org.id,
      isPlatformKey: false,
      viaOrganizationHeader: false,
    } as Caller;
    const clock = () => new Date('2026-03-02T12:00:00.000Z');
    const made = (await createContinuity({ db, clock }, caller, { providerId, clientRef: 'direct' })).continuityRecord!;
    t.deepEqual(made.createdAt, clock());
    const viaGrpc = await unary<ListContinuityResponse>('listContinuity', { clientRef: 'direct' });
    t.deepEqual(viaGrpc.data, [made]);
    const direct = await listManualReview({ db }, caller, {
      manualReviewStatus: ManualReviewStatus.MANUAL_REVIEW_STATUS_RESOLVED,
    });
    t.is(direct.data?.length, 1);
    t.deepEqual(
      direct.data,
      (
        await unary<ListManualReviewResponse>('listManualReview', {
          manualReviewStatus: ManualReviewStatus.MANUAL_REVIEW_STATUS_RESOLVED,
        })
      ).data,
    );
    const err = await t.throwsAsync(() => listManualReview({ db }, caller, { pageSize: 501 }));
    t.true(err instanceof ServiceError);
    t.like(err, { code: 'VALIDATION_ERROR', field: 'limit' });
  },
);

test('REST parity: a REST waitlist entry reads back typed as it answered, a typed cancel reads back over REST', async (t) => {
  const c = client(svc.url, orgKey);
  const made = await c.post('/api/v2/waitlist', {
    serviceId,
    customer: { name: 'Parity', email: 'p@example.com' },
    constraints: { modalityCodes: { anyOf: ['virtual'] } },
    preferences: { timezone: 'Europe/Paris' },
  });
  t.is(made.status, 200);
  const typed = await unary<ListWaitlistEntriesResponse>('listWaitlistEntries', {
    waitlistStatus: WaitlistStatus.WAITLIST_STATUS_WAITING,
  });
  const entry = typed.data!.find((e) => e.id === made.body.id);
  t.deepEqual(entry, responseMessageOf(route('CreateWaitlistEntry'), made.body).waitlistEntry);

  const cancelled = await unary<CancelWaitlistEntryResponse>('cancelWaitlistEntry', { id: made.body.id });
  const read = await c.get('/api/v2/waitlist?status=cancelled');
  const restEntry = read.body.data.find((e: any) => e.id === made.body.id);
  t.like(restEntry, { status: 'cancelled', preferences: { timezone: 'Europe/Paris' } });
  t.deepEqual(responseMessageOf(route('CancelWaitlistEntry'), restEntry), cancelled);
});
