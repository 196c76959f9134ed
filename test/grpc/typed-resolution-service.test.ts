import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError as GrpcError, type StatusObject } from '@grpc/grpc-js';
import {
  ResolutionServiceClient,
  ListCandidatesRequest_Status,
  type ConfirmResolutionResponse,
  type CreateResolutionResponse,
  type GetHoldResponse,
  type GetResolutionResponse,
  type HoldOptionResponse,
  type ListCandidatesResponse,
  type ListResolutionsResponse,
  type ReleaseHoldResponse,
} from '../../src/gen/scheduling/v1/resolution_service.js';
import { BookingStatus, Hold_Status, ResolutionStatus } from '../../src/gen/scheduling/v1/resources.js';
import { resolutionRoutes } from '../../src/contract/routes/resolution-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { listResolutions } from '../../src/api/resolution-service/list-resolutions.js';
import { getHold } from '../../src/api/resolution-service/get-hold.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import type { ResolutionDeps } from '../../src/application/resolution/resolution-deps.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { bearer, errorInfoOf } from '../helpers/typed-calls.js';

/**
 * ResolutionService on its typed messages (src/api/resolution-service/): a resolution, its candidates, a hold and a
 * confirmation over typed calls, the Idempotency-Key in metadata and its replay in the trailers, refusals with the
 * contract's code as ErrorInfo reason and the field as REST names it, implementations called with their deps alone,
 * and REST answers equal to the typed ones.
 */

let svc: TestService;
let rpc: ResolutionServiceClient;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
  rpc = new ResolutionServiceClient(svc.grpcTarget, credentials.createInsecure());
});
test.after.always(async () => {
  rpc?.close();
  await svc?.stop();
});

type Org = Awaited<ReturnType<typeof newOrganization>>;

/** A typed call with the key (and metadata), answering the response and the call's trailers. */
function unary<Res>(
  o: Org,
  method: string,
  req: object,
  md: Record<string, string> = {},
): Promise<{ res: Res; trailers: Metadata }> {
  const meta = bearer(o.key, md);
  const fn = (rpc as unknown as Record<string, Function>)[method]!;
  return new Promise((resolve, reject) => {
    let res: Res | undefined;
    const call = fn.call(rpc, req, meta, (err: GrpcError | null, r: Res) => {
      if (err) reject(err);
      else res = r;
    });
    call.on('status', (s: StatusObject) => {
      if (s.code === status.OK) resolve({ res: res!, trailers: s.metadata });
    });
  });
}

const route = (name: string) => resolutionRoutes.find((r) => r.rpc === name)!;
const idem = () => ({ 'idempotency-key': randomUUID() });

async function setUp(name: string, provider: Record<string, unknown> = {}) {
  const o = await newOrganization(svc, `trs-${name}-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'], ...provider });
  return { o, p };
}

const request = (serviceId: string) => ({
  serviceId,
  constraints: { languageCodes: { anyOf: ['EN'] } },
  dateRange: { fromDate: '2026-03-03', toDate: '2026-03-04' },
  maxOptionsPerProvider: 2,
});

test('a resolution over typed calls: created once under its key (a replay says so), read, listed, its candidates', async (t) => {
  const { o, p } = await setUp('read');
  const key = idem();
  const { res: made, trailers } = await unary<CreateResolutionResponse>(
    o,
    'createResolution',
    request(p.service.id),
    key,
  );
  const r = made.resolution!;
  t.is(r.resolutionStatus, ResolutionStatus.RESOLUTION_STATUS_RESOLVED);
  t.is(r.options!.length, 2);
  t.true(r.options![0]!.slot!.start instanceof Date);
  t.deepEqual(r.options![0]!.matchedConstraints![0]!.requiredValues, [{ kind: { $case: 'text', value: 'en' } }]);
  t.deepEqual(trailers.get('rest-header-idempotent-replayed'), []);
  const replay = await unary<CreateResolutionResponse>(o, 'createResolution', request(p.service.id), key);
  t.deepEqual(replay.res, made);
  t.deepEqual(replay.trailers.get('rest-header-idempotent-replayed'), ['true']);
  const read = (await unary<GetResolutionResponse>(o, 'getResolution', { id: r.resolutionId })).res;
  t.deepEqual(read, made);
  const listed = (await unary<ListResolutionsResponse>(o, 'listResolutions', { pageSize: 1 })).res;
  t.is(listed.data!.length, 1);
  t.like(listed.data![0], { id: r.resolutionId, resolutionStatus: ResolutionStatus.RESOLUTION_STATUS_RESOLVED });
  const candidates = (
    await unary<ListCandidatesResponse>(o, 'listCandidates', {
      id: r.resolutionId,
      status: ListCandidatesRequest_Status.STATUS_ELIGIBLE,
    })
  ).res.candidatesPage!;
  t.like(candidates, { resolutionId: r.resolutionId, hasMore: false, summary: { total: 1, matched: 1 } });
  t.is(candidates.candidates![0]!.providerId, p.provider.id);
  // REST answers what the typed calls answered.
  const rest = await o.api.get(`/api/v2/resolutions/${r.resolutionId}`);
  t.deepEqual(responseMessageOf(route('GetResolution'), rest.body), read);
  // The v1 rules, as POST /api/v1/resolutions asks for them: the service by its slug, no Idempotency-Key needed.
  const v1 = (
    await unary<CreateResolutionResponse>(o, 'createResolution', {
      ...request('intake-session'),
      v1Rules: true,
    })
  ).res;
  t.is(v1.resolution!.resolutionStatus, ResolutionStatus.RESOLUTION_STATUS_RESOLVED);
});

test('hold, read, release and confirm over typed calls; a REST hold reads back typed as it answered', async (t) => {
  const { o, p } = await setUp('hold', { username: 'dr-p1' });
  const r = (await unary<CreateResolutionResponse>(o, 'createResolution', request(p.service.id), idem())).res
    .resolution!;
  const [a, b] = r.options!;
  const path = { id: r.resolutionId, optionId: a!.optionId };
  const hold = (await unary<HoldOptionResponse>(o, 'holdOption', { ...path, ttlSeconds: 60 }, idem())).res.hold!;
  t.like(hold, { status: Hold_Status.STATUS_ACTIVE, optionId: a!.optionId });
  t.deepEqual(hold.expiresAt, new Date(clock().getTime() + 60_000));
  t.deepEqual((await unary<GetHoldResponse>(o, 'getHold', path)).res.hold, hold);
  const released = (await unary<ReleaseHoldResponse>(o, 'releaseHold', path)).res.hold!;
  t.like(released, { holdId: hold.holdId, status: Hold_Status.STATUS_RELEASED, releasedAt: clock() });
  // A hold made over REST reads back typed as REST answered it.
  const restHold = await o.api.post(`/api/v2/resolutions/${r.resolutionId}/options/${b!.optionId}/hold`, {});
  t.is(restHold.status, 200, JSON.stringify(restHold.body));
  const typedHold = (await unary<GetHoldResponse>(o, 'getHold', { id: r.resolutionId, optionId: b!.optionId })).res;
  t.deepEqual(typedHold, responseMessageOf(route('GetHold'), restHold.body));
  const key = idem();
  const confirm = {
    id: r.resolutionId,
    optionId: b!.optionId,
    holdId: restHold.body.holdId,
    customer: { name: 'Pat', email: 'pat@example.com' },
    metadata: { ref: 'x1' },
  };
  const booked = (await unary<ConfirmResolutionResponse>(o, 'confirmResolution', confirm, key)).res.booking!;
  t.like(booked, {
    resolutionId: r.resolutionId,
    optionId: b!.optionId,
    bookingStatus: BookingStatus.BOOKING_STATUS_CONFIRMED,
  });
  t.deepEqual(booked.metadata, { ref: 'x1' });
  // The provider's username, as GetBooking shows it; no confirmation link: the booking is confirmed at once.
  t.like(booked.provider, { id: p.provider.id, username: 'dr-p1' });
  t.is(booked.confirmationUrl, undefined);
  const again = await unary<ConfirmResolutionResponse>(o, 'confirmResolution', confirm, key);
  t.deepEqual(again.res.booking, booked);
  t.deepEqual(again.trailers.get('rest-header-idempotent-replayed'), ['true']);
  // Redis lost the answer: the one committed with the booking in PostgreSQL replays it, the username included.
  const redis = svc.service.deps.redis;
  await redis.del(await redis.keys(`idem:{${o.org.id}}:confirm:*`));
  const fromPostgres = await unary<ConfirmResolutionResponse>(o, 'confirmResolution', confirm, key);
  t.deepEqual(fromPostgres.res.booking, booked);
  t.deepEqual(fromPostgres.trailers.get('rest-header-idempotent-replayed'), ['true']);
  const restBooking = await o.api.get(`/api/v2/bookings/${booked.id}`);
  t.is(restBooking.status, 200);
  t.is(restBooking.body.id, booked.id);
});

test('refusals carry the contract code as ErrorInfo reason and the field as REST names it', async (t) => {
  const { o, p } = await setUp('refuse');
  const cases: {
    name: string;
    method: string;
    req: object;
    md?: Record<string, string>;
    reason: string;
    field: string;
  }[] = [
    {
      name: 'no key',
      method: 'createResolution',
      req: request(p.service.id),
      reason: 'IDEMPOTENCY_KEY_REQUIRED',
      field: 'Idempotency-Key',
    },
    {
      name: 'no date range',
      method: 'createResolution',
      req: { serviceId: p.service.id },
      md: idem(),
      reason: 'VALIDATION_ERROR',
      field: 'dateRange',
    },
    {
      name: 'bad dates',
      method: 'createResolution',
      req: { ...request(p.service.id), dateRange: { fromDate: '2026-03-04', toDate: '2026-03-03' } },
      md: idem(),
      reason: 'INVALID_DATE_RANGE',
      field: 'dateRange.to',
    },
    {
      name: 'page too large',
      method: 'listResolutions',
      req: { pageSize: 101 },
      reason: 'VALIDATION_ERROR',
      field: 'limit',
    },
    {
      name: 'exclusion code',
      method: 'listCandidates',
      req: { id: 'res_x', exclusionCode: 'lower' },
      reason: 'VALIDATION_ERROR',
      field: 'exclusionCode',
    },
    {
      name: 'unknown resolution',
      method: 'getResolution',
      req: { id: 'res_unknown' },
      reason: 'RESOLUTION_NOT_FOUND',
      field: '',
    },
    {
      name: 'ttl too long',
      method: 'holdOption',
      req: { id: 'res_x', optionId: 'opt_x', ttlSeconds: 601 },
      reason: 'VALIDATION_ERROR',
      field: 'ttlSeconds',
    },
    {
      name: 'confirm without key',
      method: 'confirmResolution',
      req: { id: 'res_x' },
      reason: 'IDEMPOTENCY_KEY_REQUIRED',
      field: 'Idempotency-Key',
    },
    {
      name: 'confirm without customer',
      method: 'confirmResolution',
      req: { id: 'res_x', optionId: 'opt_x' },
      md: idem(),
      reason: 'VALIDATION_ERROR',
      field: 'customer',
    },
  ];
  for (const c of cases) {
    const err = await t.throwsAsync<GrpcError>(() => unary(o, c.method, c.req, c.md));
    const info = errorInfoOf(err!);
    t.is(info.reason, c.reason, c.name);
    t.is(info.metadata?.field ?? '', c.field, c.name);
  }
});

test('implementations called with their deps alone', async (t) => {
  const { o } = await setUp('direct');
  const caller = {
    requestId: 'req_direct',
    keyId: 'key_direct',
    keyType: 'organization_live',
    mode: 'live',
    platformId: o.org.platformId,
    organizationId: o.org.id,
    isPlatformKey: false,
    viaOrganizationHeader: false,
  } as Caller;
  const db = svc.service.deps.db;
  t.deepEqual(await listResolutions({ db }, caller, {}), { data: [], hasMore: false, nextPageToken: undefined });
  const err = await t.throwsAsync(() => listResolutions({ db }, caller, { pageSize: 0 }));
  t.true(err instanceof ServiceError);
  t.is((err as ServiceError).code, 'VALIDATION_ERROR');
  t.is((err as ServiceError).field, 'limit');
  // A path without its option is refused before any dependency is used.
  const noOption = await t.throwsAsync(() => getHold({} as ResolutionDeps, caller, { id: 'res_x', optionId: '' }));
  t.is((noOption as ServiceError).code, 'VALIDATION_ERROR');
  t.is((noOption as ServiceError).field, 'optionId');
});
