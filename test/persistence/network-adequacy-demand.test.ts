import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createDemandSumCache } from '../../src/persistence/demand-sum-cache.js';
import type { Queryable } from '../../src/persistence/database.js';
import { createNetworkAdequacyDemand } from '../../src/persistence/network-adequacy-demand.js';
import { newOrganization } from '../helpers/graph-fixtures.js';
import { createSeededRandom } from '../helpers/seeded-random.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const DAY_MS = 24 * 3600 * 1000;
const HOUR_MS = 3600 * 1000;
const MINUTE_MS = 60 * 1000;
const at = (iso: string) => new Date(iso);

/** A reader of its own, as a service process has: its own caches, the shared database; counts its statements. */
function newReader() {
  let statements = 0;
  const db: Queryable = {
    query: ((...args: Parameters<Queryable['query']>) => {
      statements += 1;
      return (svc.service.deps.db.query as (...a: unknown[]) => unknown)(...args);
    }) as Queryable['query'],
  };
  const demand = createNetworkAdequacyDemand({
    db,
    sums: createDemandSumCache({ maxWeight: 1_000_000 }),
    hours: createDemandSumCache({ maxWeight: 1_000_000 }),
  });
  return {
    demand,
    get statements() {
      return statements;
    },
  };
}

type Org = Awaited<ReturnType<typeof newOrganization>>;
const scopeOf = (o: Org) => ({ organizationId: o.org.id as string, platformId: o.org.platformId as string });

/** Inserts a language demand row of `o` created at `createdAt`, as insertResolution writes it. */
async function demand(o: Org, value: string, createdAt: Date, days: number | null, exclusions: Record<string, number>) {
  const codes = Object.keys(exclusions);
  await svc.service.deps.db.query(
    `INSERT INTO resolution_demands (resolution_id, platform_id, organization_id, dimension, value, created_at, zero_results, days_to_first_option, exclusion_codes, exclusion_counts)
     VALUES ($1, $2, $3, 'language', $4, $5, $6, $7, $8, $9)`,
    [
      `res_${randomUUID()}`,
      o.org.platformId,
      o.org.id,
      value,
      createdAt,
      days === null,
      days,
      codes,
      codes.map((c) => exclusions[c]),
    ],
  );
}

/** `count` random language demand rows of `o` created within `spanMs` before `before`. */
async function seed(o: Org, count: number, before: Date, spanMs: number, seedNo: number) {
  const rnd = createSeededRandom(seedNo);
  for (let i = 0; i < count; i++) {
    const codes = rnd.sample(['LANGUAGE_MISMATCH', 'PANEL_FULL', 'NO_VERIFIED_AVAILABILITY'], rnd.int(0, 3));
    await demand(
      o,
      rnd.pick(['en', 'en', 'es', 'fr']),
      new Date(before.getTime() - rnd.next() * spanMs),
      rnd.chance(0.2) ? null : rnd.next() * 10,
      Object.fromEntries(codes.map((c) => [c, rnd.int(1, 30)])),
    );
  }
}

/** The resolutions per value of `o`'s language demand in (from, to], counted straight from the ledger. */
async function directCounts(o: Org, from: Date, to: Date) {
  const r = await svc.service.deps.db.query(
    `SELECT value, count(*)::int AS n FROM resolution_demands
     WHERE organization_id = $1 AND dimension = 'language' AND created_at > $2 AND created_at <= $3 GROUP BY value`,
    [o.org.id, from, to],
  );
  return Object.fromEntries(r.rows.map((x) => [x.value, x.n]));
}

test('kept hours: a resolution stored after a read counts in the next, across an hour and a day, in two processes alike', async (t) => {
  const o = await newOrganization(svc, `nad-${randomUUID().slice(0, 8)}`);
  const other = await newOrganization(svc, `nad-${randomUUID().slice(0, 8)}`);
  const a = newReader();
  const b = newReader();
  const week = (now: Date) => ({ from: new Date(now.getTime() - 7 * DAY_MS), to: now });
  await seed(o, 300, at('2026-03-02T12:20:00Z'), 9 * DAY_MS, 1);
  await seed(other, 100, at('2026-03-02T12:20:00Z'), 9 * DAY_MS, 2);

  /** Both processes and a fresh one (nothing kept) answer alike at `now`, and as the ledger counts. */
  const check = async (now: Date, what: string) => {
    const { from, to } = week(now);
    const fromA = await a.demand.read(scopeOf(o), 'language', from, to);
    t.deepEqual(await b.demand.read(scopeOf(o), 'language', from, to), fromA, `${what}: two processes`);
    t.deepEqual(await newReader().demand.read(scopeOf(o), 'language', from, to), fromA, `${what}: nothing kept`);
    t.deepEqual(
      Object.fromEntries(fromA.map((r) => [r.value, r.resolutions])),
      await directCounts(o, from, to),
      `${what}: the ledger's counts`,
    );
    return fromA;
  };
  const total = (rows: { resolutions: number }[]) => rows.reduce((n, r) => n + r.resolutions, 0);

  // The first reads roll the whole days up (a week per read) and keep the settled hours of the partial days.
  const t0 = at('2026-03-02T12:20:00Z');
  for (let i = 0; i < 3; i++) await check(t0, `warm-up ${i}`);
  t.true(a.demand.hours.size > 0, 'settled hours of the partial days are kept');
  const before = a.statements;
  const steady = await a.demand.read(scopeOf(o), 'language', week(t0).from, t0);
  t.is(a.statements - before, 1, 'a steady read runs one statement');

  // Made now: in the raw tail, counted at once.
  await demand(o, 'de', at('2026-03-02T12:20:30Z'), 1, { PANEL_FULL: 1 });
  const t1 = at('2026-03-02T12:21:00Z');
  t.is(total(await check(t1, 'made after a read')), total(steady) + 1);

  // Over the hour: 12:00-13:00 settles (kept), then a late write into it is found by its count.
  const t2 = at('2026-03-02T13:06:00Z');
  const settledRows = total(await check(t2, 'the hour settled'));
  await demand(o, 'de', at('2026-03-02T12:59:59Z'), null, { LANGUAGE_MISMATCH: 2 });
  const late = await check(at('2026-03-02T13:07:00Z'), 'written late into a kept hour');
  t.is(late.find((r) => r.value === 'de')?.resolutions, 2);
  t.true(total(late) >= settledRows + 1);

  // Another organization's rows in the same hours are never counted.
  await demand(other, 'de', at('2026-03-02T13:06:30Z'), 1, {});
  t.is((await check(at('2026-03-02T13:08:00Z'), 'other organization')).find((r) => r.value === 'de')?.resolutions, 2);

  // Over midnight: 2 March is still the partial day until 01:00 (its hours kept and checked), then a whole day.
  await check(at('2026-03-03T00:10:00Z'), 'just after midnight');
  await demand(o, 'de', at('2026-03-02T23:59:59.999Z'), 3, { PANEL_FULL: 4 });
  const afterMidnight = await check(at('2026-03-03T00:11:00Z'), 'written late into the last hour of the day');
  t.is(afterMidnight.find((r) => r.value === 'de')?.resolutions, 3);
  for (let i = 0; i < 3; i++) await check(at(`2026-03-03T01:3${i}:00Z`), `the day rolled up, read ${i}`);
  await demand(o, 'de', at('2026-03-03T01:31:00Z'), 3, {});
  const rolled = await check(at('2026-03-03T01:32:00Z'), 'the day rolled up');
  t.is(rolled.find((r) => r.value === 'de')?.resolutions, 4);

  // An hour later the head of the period has moved by one hour: the kept hours before it no longer count.
  await check(at('2026-03-03T02:32:00Z'), 'an hour on');
  await check(new Date(at('2026-03-03T02:32:00Z').getTime() + 30 * MINUTE_MS), 'half an hour more');
  await check(new Date(at('2026-03-03T02:32:00Z').getTime() + 5 * HOUR_MS), 'five hours more');
});
