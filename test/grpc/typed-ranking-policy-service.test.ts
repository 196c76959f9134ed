import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, status, type ServiceError as GrpcError } from '@grpc/grpc-js';
import {
  RankingPolicyServiceClient,
  type ActivateRankingPolicyResponse,
  type CreateRankingPolicyResponse,
  type GetRankingPolicyResponse,
  type ListRankingPoliciesResponse,
  type ListRankingPolicyVersionsResponse,
  type SimulateRankingPolicyResponse,
  type UpdateRankingPolicyResponse,
} from '../../src/gen/scheduling/v1/ranking_policy_service.js';
import { DayPart, RankingPolicyStatus, TieBreaker } from '../../src/gen/scheduling/v1/resources.js';
import { rankingPolicyRoutes } from '../../src/contract/routes/ranking-policy-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { getRankingPolicy } from '../../src/api/ranking-policy-service/get-ranking-policy.js';
import { createRankingPolicy } from '../../src/api/ranking-policy-service/create-ranking-policy.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, errorInfoOf, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * RankingPolicyService on its typed messages (src/api/ranking-policy-service/): typed answers for the whole lifecycle
 * (create, update by mask, activate, versions, simulate), refusals with the contract's code as ErrorInfo reason and
 * the field as REST names it, an implementation called with its deps alone, and REST answers equal to the typed ones.
 */

let svc: TestService;
let policies: RankingPolicyServiceClient;
let orgId: string;
let orgKey: string;
test.before(async () => {
  svc = await startTestService();
  policies = new RankingPolicyServiceClient(svc.grpcTarget, credentials.createInsecure());
  const p = client(svc.url, svc.platformKey);
  const org = await p.post('/api/v2/organizations', { externalId: `trp-${randomUUID().slice(0, 8)}`, name: 'Typed' });
  orgId = org.body.id;
  orgKey = (await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: orgId, name: 'k' })).body.key;
});
test.after.always(async () => {
  policies?.close();
  await svc?.stop();
});

function unary<Res>(method: string, req: object, key = orgKey): Promise<Res> {
  return unaryCall(policies, method, req, bearer(key));
}

const route = (rpc: string) => rankingPolicyRoutes.find((r) => r.rpc === rpc)!;
const defaults = {
  preferredLanguage: 30,
  preferredDayPart: 15,
  earliestAvailable: 25,
  providerContinuity: 40,
  workloadBalance: 10,
  preferredLocation: 15,
};

test('the lifecycle over typed calls: create, update by mask, activate, versions, list', async (t) => {
  const created = (
    await unary<CreateRankingPolicyResponse>('createRankingPolicy', {
      name: 'Typed',
      weights: { preferredLanguage: 80 },
    })
  ).rankingPolicy!;
  t.regex(created.id!, /^pol_/);
  t.is(created.rankingPolicyStatus, RankingPolicyStatus.RANKING_POLICY_STATUS_DRAFT);
  t.deepEqual(created.weights, { ...defaults, preferredLanguage: 80 });
  t.deepEqual(created.tieBreakerOrder, [
    TieBreaker.TIE_BREAKER_EARLIEST_START,
    TieBreaker.TIE_BREAKER_LOWEST_WORKLOAD,
    TieBreaker.TIE_BREAKER_PROVIDER_ID,
  ]);
  t.is(created.activeVersion, undefined, 'never activated: unset');
  t.true(created.createdAt instanceof Date);

  // The mask names the tie-breakers by the message's own name; weights not named stay as they are.
  const updated = (
    await unary<UpdateRankingPolicyResponse>('updateRankingPolicy', {
      id: created.id,
      updateMask: ['tie_breaker_order', 'name'],
      name: 'Typed b',
      weights: { preferredLanguage: 1 },
      tieBreakerOrder: [TieBreaker.TIE_BREAKER_PROVIDER_ID],
    })
  ).rankingPolicy!;
  t.is(updated.name, 'Typed b');
  t.deepEqual(updated.tieBreakerOrder, [TieBreaker.TIE_BREAKER_PROVIDER_ID]);
  t.is(updated.weights!.preferredLanguage, 80, 'weights were not in the mask');
  const merged = (
    await unary<UpdateRankingPolicyResponse>('updateRankingPolicy', { id: created.id, weights: { workloadBalance: 0 } })
  ).rankingPolicy!;
  t.deepEqual(merged.weights, { ...defaults, preferredLanguage: 80, workloadBalance: 0 }, 'merged key by key');

  const activated = (await unary<ActivateRankingPolicyResponse>('activateRankingPolicy', { id: created.id }))
    .activatedRankingPolicy!;
  t.like(activated, { id: created.id, status: 'active', version: 1 });
  t.true(activated.activatedAt instanceof Date);
  const versions = await unary<ListRankingPolicyVersionsResponse>('listRankingPolicyVersions', {
    id: created.id,
    pageSize: 1,
  });
  t.deepEqual(
    versions.data!.map((v) => [v.version, v.name, v.tieBreakerOrder]),
    [[1, 'Typed b', [TieBreaker.TIE_BREAKER_PROVIDER_ID]]],
  );
  t.false(versions.hasMore);
  t.is(versions.nextPageToken, undefined);

  const active = await unary<ListRankingPoliciesResponse>('listRankingPolicies', {
    rankingPolicyStatus: RankingPolicyStatus.RANKING_POLICY_STATUS_ACTIVE,
  });
  t.deepEqual(
    active.data!.map((p) => [p.id, p.activeVersion]),
    [[created.id, 1]],
  );
});

test('simulate over a typed call: the slot start travels as sent, and its offset decides the day part', async (t) => {
  const p = (
    await unary<CreateRankingPolicyResponse>('createRankingPolicy', {
      name: 'Sim',
      weights: { preferredDayPart: 50 },
    })
  ).rankingPolicy!;
  const r = (
    await unary<SimulateRankingPolicyResponse>('simulateRankingPolicy', {
      id: p.id,
      candidates: [
        // 14:00 UTC, 09:00 at its own offset: a morning slot.
        { providerId: 'prv_a', displayName: 'A', slotStartText: '2026-03-02T09:00:00-05:00' },
        { providerId: 'prv_b', displayName: 'B', languageCodes: ['EN'], slotStartText: '2026-03-02T13:00:00Z' },
      ],
      preferences: { preferredDayParts: [DayPart.DAY_PART_MORNING] },
    })
  ).simulationResult!;
  t.deepEqual(r.policy, { id: p.id });
  t.deepEqual(
    r.ranked!.map((x) => [x.rank, x.providerId, x.slotStart]),
    [
      [1, 'prv_a', '2026-03-02T09:00:00-05:00'],
      [2, 'prv_b', '2026-03-02T13:00:00Z'],
    ],
  );
  t.deepEqual(
    r.ranked![0]!.rankingFactors!.find((f) => f.code === 'PREFERRED_DAY_PART'),
    { code: 'PREFERRED_DAY_PART', points: 50 },
  );
  const none = await unary<SimulateRankingPolicyResponse>('simulateRankingPolicy', { id: p.id });
  t.deepEqual(none.simulationResult, { policy: { id: p.id }, ranked: [] }, 'no candidates: nothing ranked');
});

const refusals: Refusal[] = [
  {
    name: 'a create without a name',
    call: () => unary('createRankingPolicy', { weights: { preferredLanguage: 1 } }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'name',
  },
  {
    name: 'a negative weight, named as REST names it',
    call: () => unary('createRankingPolicy', { name: 'x', weights: { preferredDayPart: -1 } }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'weights.preferredDayPart',
  },
  {
    name: 'a tie-breaker listed twice',
    call: () =>
      unary('createRankingPolicy', {
        name: 'x',
        tieBreakerOrder: [TieBreaker.TIE_BREAKER_PROVIDER_ID, TieBreaker.TIE_BREAKER_PROVIDER_ID],
      }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'tieBreakers.1',
  },
  {
    name: 'an update mask naming no field',
    call: () => unary('updateRankingPolicy', { id: 'pol_x', updateMask: ['status'] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'updateMask',
  },
  {
    name: 'an unknown policy',
    call: () => unary('getRankingPolicy', { id: 'pol_unknown' }),
    code: status.NOT_FOUND,
    reason: 'POLICY_NOT_FOUND',
  },
  {
    name: 'an empty id',
    call: () => unary('activateRankingPolicy', { id: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'id',
  },
  {
    name: 'a page size out of range, named as REST names it',
    call: () => unary('listRankingPolicies', { pageSize: 501 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
];
assertRefusals(test, 'a typed RankingPolicyService request is refused with ErrorInfo', refusals);

test('a simulated slot start that is no timestamp is refused on its candidate, another organization gets 403', async (t) => {
  const p = (await unary<CreateRankingPolicyResponse>('createRankingPolicy', { name: 'Bad sim' })).rankingPolicy!;
  const bad = await t.throwsAsync<GrpcError>(() =>
    unary('simulateRankingPolicy', {
      id: p.id,
      candidates: [{ providerId: 'p', displayName: 'P', slotStartText: 'tomorrow' }],
    }),
  );
  t.is(errorInfoOf(bad!).metadata?.field, 'candidates.0.slotStart');
  const foreign = await t.throwsAsync<GrpcError>(() => unary('getRankingPolicy', { id: p.id }, svc.platformKey));
  t.is(foreign!.code, status.PERMISSION_DENIED);
  t.is(errorInfoOf(foreign!).reason, 'FORBIDDEN');
});

test('GetRankingPolicy and CreateRankingPolicy are functions of their dependencies, the caller and the typed request', async (t) => {
  const { db } = svc.service.deps;
  const caller = {
    requestId: 'req_direct',
    keyId: 'key_direct',
    keyType: 'organization_test',
    mode: 'test',
    platformId: (await db.query('SELECT platform_id FROM organizations WHERE id = $1', [orgId])).rows[0].platform_id,
    organizationId: orgId,
    isPlatformKey: false,
    viaOrganizationHeader: false,
  } as Caller;
  const clock = () => new Date('2026-03-02T12:00:00.000Z');
  const made = (await createRankingPolicy({ db, clock }, caller, { name: 'Direct', tieBreakerOrder: [] }))
    .rankingPolicy!;
  t.deepEqual(made.createdAt, clock());
  const direct = await getRankingPolicy({ db }, caller, { id: made.id });
  const viaGrpc = await unary<GetRankingPolicyResponse>('getRankingPolicy', { id: made.id });
  t.deepEqual(direct, viaGrpc);
  const err = await t.throwsAsync(() => getRankingPolicy({ db }, caller, { id: 'x'.repeat(201) }));
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'id' });
});

test('REST parity: a REST create reads back typed as it answered, and a typed update reads back over REST', async (t) => {
  const c = client(svc.url, orgKey);
  const made = await c.post('/api/v2/ranking-policies', { name: 'Parity', tieBreakers: ['provider_id'] });
  t.is(made.status, 200);
  const typed = await unary<GetRankingPolicyResponse>('getRankingPolicy', { id: made.body.id });
  t.deepEqual(typed, responseMessageOf(route('GetRankingPolicy'), made.body));

  const updated = await unary<UpdateRankingPolicyResponse>('updateRankingPolicy', {
    id: made.body.id,
    weights: { preferredLocation: 99 },
  });
  const read = await c.get(`/api/v2/ranking-policies/${made.body.id}`);
  t.is(read.status, 200);
  t.deepEqual(read.body.weights, { ...defaults, preferredLocation: 99 });
  t.deepEqual(responseMessageOf(route('GetRankingPolicy'), read.body), updated);
});
