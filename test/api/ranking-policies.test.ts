import test from 'ava';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let keyA: string;
let keyB: string;

/** Makes a fresh organization with its own test key. */
async function newOrg(externalId: string) {
  const p = client(svc.url, svc.platformKey);
  const org = (await p.post('/api/v2/organizations', { externalId, name: externalId })).body;
  const key = (
    await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: externalId })
  ).body.key as string;
  return { org, key };
}

const defaults = {
  preferredLanguage: 30,
  preferredDayPart: 15,
  earliestAvailable: 25,
  providerContinuity: 40,
  workloadBalance: 10,
  preferredLocation: 15,
};
const audits = async (id: string) =>
  (
    await svc.service.deps.db.query('SELECT action FROM audit_events WHERE resource_id = $1 ORDER BY seq', [id])
  ).rows.map((r) => r.action);

// The clock never moves in this file, so every timestamp written equals svc.clock().
test.before(async () => {
  svc = await startTestService();
  ({ key: keyA } = await newOrg('pol-a'));
  ({ key: keyB } = await newOrg('pol-b'));
});
test.after.always(async () => {
  await svc?.stop();
});

test('create answers a draft with missing weights filled from the defaults and default tie-breakers; audited', async (t) => {
  const r = await client(svc.url, keyA).post('/api/v2/ranking-policies', {
    name: 'Language first',
    weights: { preferredLanguage: 80, workloadBalance: 0 },
  });
  t.is(r.status, 200);
  t.regex(r.body.id, /^pol_[0-9a-z]{26}$/);
  t.deepEqual(r.body, {
    id: r.body.id,
    name: 'Language first',
    status: 'draft',
    weights: { ...defaults, preferredLanguage: 80, workloadBalance: 0 },
    tieBreakers: ['earliest_start', 'lowest_workload', 'provider_id'],
    activeVersion: null,
    createdAt: svc.clock().toISOString(),
    updatedAt: svc.clock().toISOString(),
  });
  t.deepEqual((await client(svc.url, keyA).get(`/api/v2/ranking-policies/${r.body.id}`)).body, r.body);
  t.deepEqual(await audits(r.body.id), ['ranking_policy.create']);
});

const invalid: [string, unknown, string][] = [
  ['hard-constraint key languageCodes', { name: 'x', weights: { languageCodes: 10 } }, 'weights.languageCodes'],
  [
    'hard-constraint key insurancePlanCodes',
    { name: 'x', weights: { insurancePlanCodes: 5 } },
    'weights.insurancePlanCodes',
  ],
  ['unknown weight key', { name: 'x', weights: { popularity: 5 } }, 'weights.popularity'],
  ['negative weight', { name: 'x', weights: { preferredDayPart: -1 } }, 'weights.preferredDayPart'],
  ['weight not a number', { name: 'x', weights: { preferredDayPart: '5' } }, 'weights.preferredDayPart'],
  ['unknown tie breaker', { name: 'x', tieBreakers: ['earliest_start', 'random'] }, 'tieBreakers.1'],
  ['duplicate tie breaker', { name: 'x', tieBreakers: ['provider_id', 'provider_id'] }, 'tieBreakers.1'],
  ['name too long', { name: 'n'.repeat(201) }, 'name'],
  ['name missing', { weights: {} }, 'name'],
  ['blank name', { name: '   ' }, 'name'],
  ['weights not an object', { name: 'x', weights: [1, 2] }, 'weights'],
];
for (const [title, body, field] of invalid) {
  test(`create rejects ${title} with 400 VALIDATION_ERROR on ${field}`, async (t) => {
    const r = await client(svc.url, keyA).post('/api/v2/ranking-policies', body);
    t.is(r.status, 400);
    t.is(r.body.error.code, 'VALIDATION_ERROR');
    t.is(r.body.error.field, field);
    t.true(r.body.error.details.some((d: any) => d.field === field));
  });
}

test('a name of 200 code points (astral characters) is accepted', async (t) => {
  const r = await client(svc.url, keyA).post('/api/v2/ranking-policies', { name: '😀'.repeat(200) });
  t.is(r.status, 200);
  t.is([...r.body.name].length, 200);
});

test('lifecycle: draft -> activate v1 -> patch -> activate v2; another policy activated makes it inactive; rollback is v3', async (t) => {
  const { org, key } = await newOrg('pol-life');
  const c = client(svc.url, key);
  const p1 = (await c.post('/api/v2/ranking-policies', { name: 'P1', weights: { preferredLanguage: 50 } })).body;
  const p2 = (await c.post('/api/v2/ranking-policies', { name: 'P2', weights: {}, tieBreakers: ['provider_id'] })).body;

  const a1 = await c.post(`/api/v2/ranking-policies/${p1.id}/activate`);
  t.is(a1.status, 200);
  t.deepEqual(a1.body, { id: p1.id, status: 'active', version: 1, activatedAt: svc.clock().toISOString() });
  t.like((await c.get(`/api/v2/ranking-policies/${p1.id}`)).body, { status: 'active', activeVersion: 1 });

  const patched = await c.patch(`/api/v2/ranking-policies/${p1.id}`, {
    weights: { preferredLanguage: 5 },
    name: 'P1 b',
  });
  t.is(patched.status, 200);
  t.like(patched.body, { name: 'P1 b', status: 'active', activeVersion: 1, updatedAt: svc.clock().toISOString() });
  t.deepEqual(patched.body.weights, { ...defaults, preferredLanguage: 5 }, 'PATCH merges weights key by key');
  // The working copy changed, the active version did not.
  const activeRow = async () =>
    (
      await svc.service.deps.db.query(
        `SELECT p.id, v.version, v.weights FROM ranking_policies p JOIN ranking_policy_versions v ON v.policy_id = p.id AND v.version = p.active_version WHERE p.organization_id = $1 AND p.status = 'active'`,
        [org.id],
      )
    ).rows;
  t.is((await activeRow())[0].weights.preferredLanguage, 50);

  const a2 = await c.post(`/api/v2/ranking-policies/${p1.id}/activate`);
  t.is(a2.body.version, 2);
  t.is((await activeRow())[0].weights.preferredLanguage, 5);

  const a3 = await c.post(`/api/v2/ranking-policies/${p2.id}/activate`);
  t.deepEqual(a3.body, { id: p2.id, status: 'active', version: 1, activatedAt: svc.clock().toISOString() });
  t.like((await c.get(`/api/v2/ranking-policies/${p1.id}`)).body, { status: 'inactive', activeVersion: 2 });
  t.deepEqual(
    (await activeRow()).map((r) => r.id),
    [p2.id],
  );

  // Rollback of P1: weights back to v1's and activate again -> a new version number, P2 inactive.
  await c.patch(`/api/v2/ranking-policies/${p1.id}`, { weights: { preferredLanguage: 50 }, name: 'P1' });
  const a4 = await c.post(`/api/v2/ranking-policies/${p1.id}/activate`);
  t.is(a4.body.version, 3);
  t.like((await c.get(`/api/v2/ranking-policies/${p2.id}`)).body, { status: 'inactive' });
  const versions = await c.get(`/api/v2/ranking-policies/${p1.id}/versions`);
  t.is(versions.status, 200);
  t.deepEqual(
    versions.body.data.map((v: any) => [v.version, v.name, v.weights.preferredLanguage]),
    [
      [1, 'P1', 50],
      [2, 'P1 b', 5],
      [3, 'P1', 50],
    ],
  );
  t.deepEqual(versions.body.data[2].tieBreakers, ['earliest_start', 'lowest_workload', 'provider_id']);
  t.is(versions.body.hasMore, false);
  t.is(versions.body.nextCursor, null);
  const paged = await c.get(`/api/v2/ranking-policies/${p1.id}/versions?limit=2`);
  t.deepEqual(
    paged.body.data.map((v: any) => v.version),
    [1, 2],
  );
  t.true(paged.body.hasMore);
  t.deepEqual(
    (await c.get(`/api/v2/ranking-policies/${p1.id}/versions?limit=2&cursor=${paged.body.nextCursor}`)).body.data.map(
      (v: any) => v.version,
    ),
    [3],
  );

  const list = await c.get('/api/v2/ranking-policies');
  t.deepEqual(
    list.body.data.map((p: any) => [p.id, p.status]),
    [
      [p1.id, 'active'],
      [p2.id, 'inactive'],
    ],
  );
  t.deepEqual(
    (await c.get('/api/v2/ranking-policies?status=inactive')).body.data.map((p: any) => p.id),
    [p2.id],
  );
  t.is((await c.get('/api/v2/ranking-policies?status=archived')).status, 400);
  t.deepEqual(await audits(p1.id), [
    'ranking_policy.create',
    'ranking_policy.activate',
    'ranking_policy.update',
    'ranking_policy.activate',
    'ranking_policy.update',
    'ranking_policy.activate',
  ]);
});

test('a PATCH that changes nothing answers the policy unchanged and writes no audit event', async (t) => {
  const c = client(svc.url, keyA);
  const p = (await c.post('/api/v2/ranking-policies', { name: 'Same' })).body;
  const r = await c.patch(`/api/v2/ranking-policies/${p.id}`, { name: 'Same', weights: { preferredDayPart: 15 } });
  t.deepEqual(r.body, p);
  t.deepEqual(await audits(p.id), ['ranking_policy.create']);
  const bad = await c.patch(`/api/v2/ranking-policies/${p.id}`, { weights: { ageGroupCodes: 1 } });
  t.is(bad.status, 400);
  t.is(bad.body.error.field, 'weights.ageGroupCodes');
});

test('concurrent activations of two policies leave exactly one active', async (t) => {
  const { org, key } = await newOrg('pol-race');
  const c = client(svc.url, key);
  const ids = await Promise.all(
    ['R1', 'R2', 'R3'].map(async (name) => (await c.post('/api/v2/ranking-policies', { name })).body.id as string),
  );
  const answers = await Promise.all(ids.map((id) => c.post(`/api/v2/ranking-policies/${id}/activate`)));
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200],
  );
  const active = await svc.service.deps.db.query(
    `SELECT id FROM ranking_policies WHERE organization_id = $1 AND status = 'active'`,
    [org.id],
  );
  t.is(active.rows.length, 1);
});

const candidates = [
  { providerId: 'prv_b', displayName: 'Dr. B', languageCodes: ['en'], slotStart: '2026-03-02T09:00:00Z' },
  { providerId: 'prv_a', displayName: 'Dr. A', languageCodes: ['es', 'en'], slotStart: '2026-03-02T14:00:00Z' },
  { providerId: 'prv_c', displayName: 'Dr. C', languageCodes: ['fr'], slotStart: '2026-03-02T19:00:00Z' },
];

test('simulate: a provider speaking a preferred language outranks; the working copy is used, version null', async (t) => {
  const c = client(svc.url, keyA);
  const p = (await c.post('/api/v2/ranking-policies', { name: 'Sim' })).body;
  const r = await c.post(`/api/v2/ranking-policies/${p.id}/simulate`, {
    candidates,
    preferences: { languageCodes: ['ES'] },
  });
  t.is(r.status, 200);
  t.deepEqual(r.body.policy, { id: p.id, version: null });
  t.deepEqual(
    r.body.ranked.map((x: any) => [x.rank, x.providerId]),
    [
      [1, 'prv_a'],
      [2, 'prv_b'],
      [3, 'prv_c'],
    ],
  );
  t.like(r.body.ranked[0], { displayName: 'Dr. A', slotStart: '2026-03-02T14:00:00Z' });
  t.true(r.body.ranked[0].rankingFactors.some((f: any) => f.code === 'PREFERRED_LANGUAGE' && f.points === 30));
  t.is(r.body.ranked[0].score - r.body.ranked[1].score, 30);

  // With the language weight patched to 0 the preference no longer counts: the earliest start wins the tie.
  await c.patch(`/api/v2/ranking-policies/${p.id}`, { weights: { preferredLanguage: 0 } });
  const r2 = await c.post(`/api/v2/ranking-policies/${p.id}/simulate`, {
    candidates,
    preferences: { languageCodes: ['es'] },
  });
  t.deepEqual(
    r2.body.ranked.map((x: any) => x.providerId),
    ['prv_b', 'prv_a', 'prv_c'],
  );
});

const dayPartCases: [string, string][] = [
  ['morning', 'prv_b'],
  ['afternoon', 'prv_a'],
  ['evening', 'prv_c'],
];
for (const [dayPart, winner] of dayPartCases) {
  test(`simulate: preferred day part ${dayPart} puts ${winner} first`, async (t) => {
    const c = client(svc.url, keyA);
    const p = (await c.post('/api/v2/ranking-policies', { name: `Day ${dayPart}`, weights: { preferredDayPart: 50 } }))
      .body;
    const r = await c.post(`/api/v2/ranking-policies/${p.id}/simulate`, {
      candidates,
      preferences: { dayParts: [dayPart] },
    });
    t.is(r.status, 200);
    t.is(r.body.ranked[0].providerId, winner);
    t.deepEqual(
      r.body.ranked[0].rankingFactors.find((f: any) => f.code === 'PREFERRED_DAY_PART'),
      { code: 'PREFERRED_DAY_PART', points: 50 },
    );
  });
}

test('simulate validates its body', async (t) => {
  const c = client(svc.url, keyA);
  const p = (await c.post('/api/v2/ranking-policies', { name: 'Sim bad' })).body;
  const cases: [unknown, string][] = [
    [{ candidates: [{ ...candidates[0], slotStart: 'tomorrow' }] }, 'candidates.0.slotStart'],
    [{ candidates: [candidates[0]], preferences: { dayParts: ['night'] } }, 'preferences.dayParts.0'],
    [{}, 'candidates'],
  ];
  for (const [body, field] of cases) {
    const r = await c.post(`/api/v2/ranking-policies/${p.id}/simulate`, body);
    t.is(r.status, 400);
    t.is(r.body.error.field, field);
  }
  const empty = await c.post(`/api/v2/ranking-policies/${p.id}/simulate`, { candidates: [] });
  t.deepEqual(empty.body, { policy: { id: p.id, version: null }, ranked: [] });
});

test("another organization's policy is 403 FORBIDDEN on every endpoint; an unknown id is 404 POLICY_NOT_FOUND", async (t) => {
  const p = (await client(svc.url, keyA).post('/api/v2/ranking-policies', { name: 'Mine' })).body;
  const b = client(svc.url, keyB);
  const calls = [
    () => b.get(`/api/v2/ranking-policies/${p.id}`),
    () => b.patch(`/api/v2/ranking-policies/${p.id}`, { name: 'Theirs' }),
    () => b.post(`/api/v2/ranking-policies/${p.id}/activate`),
    () => b.get(`/api/v2/ranking-policies/${p.id}/versions`),
    () => b.post(`/api/v2/ranking-policies/${p.id}/simulate`, { candidates }),
  ];
  for (const call of calls) {
    const r = await call();
    t.is(r.status, 403);
    t.is(r.body.error.code, 'FORBIDDEN');
  }
  t.false((await b.get('/api/v2/ranking-policies')).body.data.some((x: any) => x.id === p.id));
  const missing = await b.get('/api/v2/ranking-policies/pol_unknown');
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'POLICY_NOT_FOUND');
  t.is((await b.post('/api/v2/ranking-policies/pol_unknown/activate')).body.error.code, 'POLICY_NOT_FOUND');
  t.like((await client(svc.url, keyA).get(`/api/v2/ranking-policies/${p.id}`)).body, { name: 'Mine', status: 'draft' });
});
