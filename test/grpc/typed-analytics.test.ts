import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, status } from '@grpc/grpc-js';
import {
  AnalyticsServiceClient,
  GetNetworkAdequacyRequest_Dimension as Dimension,
  type GetAnalyticsResponse,
  type GetNetworkAdequacyResponse,
} from '../../src/gen/scheduling/v1/analytics_service.js';
import { AnalyticsPeriod } from '../../src/gen/scheduling/v1/resources.js';
import { getAnalytics } from '../../src/api/analytics-service/get-analytics.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, unaryCall } from '../helpers/typed-calls.js';

/**
 * AnalyticsService on its typed messages (src/api/analytics-service/): typed answers equal to the REST door's, refusals
 * with the contract's code as ErrorInfo reason and the field named as REST names it.
 */

const NOW = new Date('2026-03-02T12:00:00Z');
const DAY_MS = 24 * 3600 * 1000;
const clock = createTestClock(NOW);

let svc: TestService;
let analytics: AnalyticsServiceClient;
let org: Awaited<ReturnType<typeof newOrganization>>;

/** Inserts a resolutions row as the resolution code does (status as made, slots evaluated). */
async function resolution(status: 'resolved' | 'zero_results', daysAgo: number, evaluatedSlots: number) {
  const createdAt = new Date(NOW.getTime() - daysAgo * DAY_MS);
  await svc.service.deps.db.query(
    `INSERT INTO resolutions (id, platform_id, organization_id, status, request_id, service_slug, policy_id, policy_version, graph_version, options_returned, evaluated_slots, providers_scanned, booking_id, created_at, expires_at)
     VALUES ($1,$2,$3,$4,'req','visit','default',1,1,$5,$6,1,NULL,$7,$8)`,
    [
      `res_${randomUUID()}`,
      org.org.platformId,
      org.org.id,
      status,
      status === 'resolved' ? 1 : 0,
      evaluatedSlots,
      createdAt,
      new Date(createdAt.getTime() + 300_000),
    ],
  );
}

/** Inserts a demand row as insertResolution writes it (days null: the resolution returned nothing). */
async function demand(value: string, daysAgo: number, days: number | null, exclusions: Record<string, number> = {}) {
  const codes = Object.keys(exclusions);
  await svc.service.deps.db.query(
    `INSERT INTO resolution_demands (resolution_id, platform_id, organization_id, dimension, value, created_at, zero_results, days_to_first_option, exclusion_codes, exclusion_counts)
     VALUES ($1, $2, $3, 'language', $4, $5, $6, $7, $8, $9)`,
    [
      `res_${randomUUID()}`,
      org.org.platformId,
      org.org.id,
      value,
      new Date(NOW.getTime() - daysAgo * DAY_MS),
      days === null,
      days,
      codes,
      codes.map((c) => exclusions[c]),
    ],
  );
}

test.before(async () => {
  svc = await startTestService({ clock });
  analytics = new AnalyticsServiceClient(svc.grpcTarget, credentials.createInsecure());
  org = await newOrganization(svc, 'typed-analytics');
  await providerWithService(org, { externalId: 'ana', languageCodes: ['es'], acceptsNewClients: true });
  await resolution('resolved', 1, 10);
  await resolution('zero_results', 3, 5);
  await resolution('resolved', 20, 30);
  await demand('es', 1, 2, { PANEL_FULL: 2 });
  await demand('fr', 2, null, { LANGUAGE_MISMATCH: 1 });
});
test.after.always(async () => {
  analytics?.close();
  await svc?.stop();
});

/** Metadata of a call made with `key` (and, for a platform key, the organization it acts in). */
const metadata = (key: string, organizationId?: string) =>
  bearer(key, organizationId ? { 'service-organization-id': organizationId } : {});

/** Calls a unary AnalyticsService method and resolves with its typed answer, or rejects with its gRPC error. */
function unary<Res>(method: string, req: object, md = metadata(org.key)): Promise<Res> {
  return unaryCall(analytics, method, req, md);
}

test('GetAnalytics answers the period’s counts on typed messages, as the REST door does', async (t) => {
  const week = await unary<GetAnalyticsResponse>('getAnalytics', {
    analyticsPeriod: AnalyticsPeriod.ANALYTICS_PERIOD_LAST_7_DAYS,
  });
  t.deepEqual(week.analytics, {
    resolutions: { total: 2, resolved: 1, zeroResults: 1, avgEvaluatedSlots: 7.5 },
    bookings: { total: 0, confirmed: 0, cancelled: 0, rescheduled: 0 },
    conversionRate: 0,
    period: 'last_7_days',
  });
  t.deepEqual((await org.api.get('/api/v2/analytics?period=last_7_days')).body, week.analytics);

  // A period not given is the last 30 days.
  const month = await unary<GetAnalyticsResponse>('getAnalytics', {});
  t.is(month.analytics?.period, 'last_30_days');
  t.is(month.analytics?.resolutions?.total, 3);
  t.is(month.analytics?.resolutions?.avgEvaluatedSlots, 15);

  // A platform key acting in the organization reads the same answer.
  const viaPlatform = await unary<GetAnalyticsResponse>(
    'getAnalytics',
    { analyticsPeriod: AnalyticsPeriod.ANALYTICS_PERIOD_LAST_7_DAYS },
    metadata(svc.platformKey, org.org.id),
  );
  t.deepEqual(viaPlatform, week);
});

test('GetNetworkAdequacy answers rows of the dimension on typed messages, as the REST door does', async (t) => {
  const r = await unary<GetNetworkAdequacyResponse>('getNetworkAdequacy', {
    dimension: Dimension.DIMENSION_LANGUAGE,
    analyticsPeriod: AnalyticsPeriod.ANALYTICS_PERIOD_LAST_7_DAYS,
  });
  const adequacy = r.networkAdequacy!;
  t.is(adequacy.period, 'last_7_days');
  t.is(adequacy.dimension, 'language');
  t.deepEqual(
    adequacy.rows!.map((row) => row.value),
    ['es', 'fr'],
  );
  const [es, fr] = adequacy.rows!;
  t.like(es, { providers: 1, acceptingNewClients: 1, resolutions: 1, zeroResultRate: 0 });
  t.true(es!.medianDaysToFirstOption! > 0);
  t.deepEqual(es!.topExclusionCodes, [{ code: 'PANEL_FULL', count: 2 }]);
  t.like(fr, { providers: 0, acceptingNewClients: 0, resolutions: 1, zeroResultRate: 1 });
  t.is(fr!.medianDaysToFirstOption, undefined, 'no option returned: an unset field');
  t.is(fr!.p90DaysToFirstOption, undefined);

  const rest = (await org.api.get('/api/v2/analytics/network-adequacy?dimension=language&period=last_7_days')).body;
  t.deepEqual(rest, {
    ...adequacy,
    rows: adequacy.rows!.map((row) => ({
      ...row,
      medianDaysToFirstOption: row.medianDaysToFirstOption ?? null,
      p90DaysToFirstOption: row.p90DaysToFirstOption ?? null,
    })),
  });
});

const refusals: { name: string; call: () => Promise<unknown>; field: string }[] = [
  {
    name: 'GetNetworkAdequacy without a dimension',
    call: () => unary('getNetworkAdequacy', { analyticsPeriod: AnalyticsPeriod.ANALYTICS_PERIOD_LAST_7_DAYS }),
    field: 'dimension',
  },
  {
    name: 'GetNetworkAdequacy with a dimension outside the enum',
    call: () => unary('getNetworkAdequacy', { dimension: Dimension.UNRECOGNIZED }),
    field: 'dimension',
  },
  {
    name: 'GetAnalytics with a period outside the enum, named as REST names it',
    call: () => unary('getAnalytics', { analyticsPeriod: AnalyticsPeriod.UNRECOGNIZED }),
    field: 'period',
  },
  {
    name: 'GetNetworkAdequacy with both wrong: the period first, in field order',
    call: () => unary('getNetworkAdequacy', { analyticsPeriod: AnalyticsPeriod.UNRECOGNIZED }),
    field: 'period',
  },
];
assertRefusals(
  test,
  'a typed analytics request is refused with ErrorInfo',
  refusals.map((r) => ({ ...r, code: status.INVALID_ARGUMENT, reason: 'VALIDATION_ERROR' })),
);

test('GetAnalytics is a function of its dependencies, the caller and the typed request', async (t) => {
  const { db } = svc.service.deps;
  const caller: Caller = {
    requestId: 'req_typed_analytics',
    keyId: 'key_direct',
    keyType: 'organization_live',
    mode: 'live',
    platformId: org.org.platformId,
    organizationId: org.org.id,
    isPlatformKey: false,
    viaOrganizationHeader: false,
  };
  const answer = await getAnalytics({ db, clock: () => NOW }, caller, {
    analyticsPeriod: AnalyticsPeriod.ANALYTICS_PERIOD_LAST_90_DAYS,
  });
  t.like(answer.analytics, { period: 'last_90_days', resolutions: { total: 3, resolved: 2, zeroResults: 1 } });
  const err = await t.throwsAsync(() =>
    getAnalytics({ db, clock: () => NOW }, caller, { analyticsPeriod: AnalyticsPeriod.UNRECOGNIZED }),
  );
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'period' });
});
