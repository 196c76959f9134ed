import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { newOrganization } from '../helpers/graph-fixtures.js';
import { client, request, type JsonResponse } from '../helpers/http.js';
import { startServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';
import { startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

// More work per process than the default admission limits, on purpose (this test is about correctness under
// concurrency, not shedding: test/gateway/admit-requests.test.ts): the limits are off.
// Soak: many clients hold, confirm (with and without a hold), release, create v1 bookings, follow confirmation links,
// cancel and reschedule on three providers with partly overlapping claims (three durations, buffers, 15-minute
// steps), through two service processes on one Redis and one PostgreSQL, for a bounded time. Every claim races
// across processes; a deadlock or a serialization failure that reached a client would be a 5xx.
const SOAK_MS = Number(process.env.SOAK_MS ?? 20_000);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 16);

let stores: TestStores;
let db: Database;
const procs: ServiceProcess[] = [];
const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;

test.before(async () => {
  stores = await startTestStores();
  db = createDatabase(stores.databaseUrl, { max: 4 });
  procs.push(
    ...(await startServiceProcesses(2, {
      databaseUrl: stores.databaseUrl,
      redisUrl: stores.redisUrl,
      platformKey,
      name: 'soak',
      env: { RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'error' },
    })),
  );
});
test.after.always(async () => {
  for (const p of procs) await p.kill('SIGKILL').catch(() => undefined);
  await db?.close().catch(() => undefined);
  await stores?.stop();
});

const DAY_MS = 86_400_000;
/** A UTC date a few days ahead of the real now (the children use the real clock). */
const day = new Date(Date.now() + 3 * DAY_MS).toISOString().slice(0, 10);
const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
const everyDay = (start: string, end: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
      d,
      { enabled: true, slots: [{ start, end }] },
    ]),
  );
/** Three scarce hours a day, so claims keep colliding. */
const schedule = { timezone: 'UTC', days: everyDay('09:00', '12:00') };
/** Services every provider offers (same titles, so one resolution ranks all providers): claims overlap partly. */
const SERVICES = [
  { title: 'Short Session', duration: 30, slotIntervalMinutes: 15 },
  { title: 'Long Session', duration: 60, slotIntervalMinutes: 30, bufferAfterMinutes: 15 },
  { title: 'Prep Session', duration: 45, slotIntervalMinutes: 15, bufferBeforeMinutes: 10 },
];
const PROVIDERS = 3;

/** mulberry32: a small seeded generator, so a failing run can be replayed with SOAK_SEED. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One answered call of the soak: which route, what it answered. */
interface Call {
  route: string;
  status: number;
  code: string | undefined;
  body: unknown;
  via: number;
  requestId: string | null;
}
/** What the clients were told and must find in the ledger afterwards. */
interface Acknowledged {
  holds: string[];
  releases: string[];
  confirms: string[];
  v1Creates: string[];
  cancels: string[];
  reschedules: { from: string; to: string }[];
  confirmedLinks: string[];
}

test('soak: holds, confirms, releases, v1 creates, links, cancels and reschedules over two processes: no 5xx, no overlap', async (t) => {
  t.timeout(SOAK_MS + 120_000);
  const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);
  t.log(`seed ${seed}, ${CLIENTS} clients, ${SOAK_MS} ms, day ${day}`);
  const rnd = seeded(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

  const o = await newOrganization(
    { url: procs[0]!.url, platformKey } as unknown as TestService,
    `soak-${randomUUID().slice(0, 8)}`,
  );
  const providers: { id: string; services: string[] }[] = [];
  for (let i = 0; i < PROVIDERS; i++) {
    const provider = (
      await o.platform.post('/api/v2/providers', {
        externalId: `soak-${i}`,
        displayName: `Dr. Soak ${i}`,
        languageCodes: ['en'],
        modalityCodes: ['virtual'],
      })
    ).body;
    if (!provider.id) throw new Error(`provider: ${JSON.stringify(provider)}`);
    const services: string[] = [];
    for (const s of SERVICES) {
      const svc = (await o.api.post('/api/v2/services', { providerId: provider.id, ...s })).body;
      if (!svc.id) throw new Error(`service: ${JSON.stringify(svc)}`);
      services.push(svc.id);
    }
    const sch = (await o.api.post('/api/v2/calendar-connections', { providerId: provider.id, ...schedule })).body;
    if (!sch.id) throw new Error(`schedule: ${JSON.stringify(sch)}`);
    providers.push({ id: provider.id, services });
  }

  const calls: Call[] = [];
  const ack: Acknowledged = {
    holds: [],
    releases: [],
    confirms: [],
    v1Creates: [],
    cancels: [],
    reschedules: [],
    confirmedLinks: [],
  };
  /** Bookings clients know of (any state), with the v1 confirmation token where one was given. */
  const known: { id: string; token?: string }[] = [];
  let turn = 0;
  const call = async (
    route: string,
    run: (api: ReturnType<typeof client>, base: string) => Promise<JsonResponse>,
  ): Promise<JsonResponse> => {
    const via = turn++ % procs.length;
    const res = await run(client(procs[via]!.url, o.key), procs[via]!.url);
    calls.push({
      route,
      status: res.status,
      code: res.body?.error?.code,
      body: res.body,
      via,
      requestId: res.headers.get('x-service-request-id'),
    });
    return res;
  };
  const resolve = async (serviceId: string) => {
    const r = await call('POST /api/v2/resolutions', (api) =>
      api.post(
        '/api/v2/resolutions',
        { serviceId, dateRange: { from: day, to: nextDay }, maxOptionsPerProvider: 10 },
        { 'idempotency-key': randomUUID() },
      ),
    );
    return r.status === 200 ? (r.body as { resolutionId: string; options: { optionId: string }[] }) : undefined;
  };
  const customer = { name: 'Soak Client', email: 'soak@example.com' };
  const HOLD_PATH = 'POST /api/v2/resolutions/:id/options/:optionId/hold';
  const RELEASE_PATH = 'DELETE /api/v2/resolutions/:id/options/:optionId/hold';
  const CONFIRM_PATH = 'POST /api/v2/resolutions/:id/confirm';
  const confirm = async (resolutionId: string, optionId: string, holdId?: string) => {
    const r = await call(CONFIRM_PATH, (api) =>
      api.post(
        `/api/v2/resolutions/${resolutionId}/confirm`,
        { optionId, customer, ...(holdId ? { holdId } : {}) },
        { 'idempotency-key': randomUUID() },
      ),
    );
    if (r.status === 200) {
      ack.confirms.push(r.body.id);
      known.push({ id: r.body.id });
    }
  };

  const actions: [number, () => Promise<void>][] = [
    // Resolve, hold one of the first options for 1-3 s, then confirm with the hold, release it, or let it lapse.
    [
      30,
      async () => {
        const r = await resolve(pick(pick(providers).services));
        if (!r || r.options.length === 0) return;
        const option = pick(r.options.slice(0, 6));
        const h = await call(HOLD_PATH, (api) =>
          api.post(`/api/v2/resolutions/${r.resolutionId}/options/${option.optionId}/hold`, {
            ttlSeconds: 1 + Math.floor(rnd() * 3),
          }),
        );
        if (h.status !== 200) return;
        ack.holds.push(h.body.holdId);
        const next = rnd();
        if (next < 0.2) await new Promise((res) => setTimeout(res, 200 + rnd() * 1500));
        if (next < 0.55) await confirm(r.resolutionId, option.optionId, h.body.holdId);
        else if (next < 0.85) {
          const rel = await call(RELEASE_PATH, (api) =>
            api.delete(`/api/v2/resolutions/${r.resolutionId}/options/${option.optionId}/hold`),
          );
          if (rel.status === 200) ack.releases.push(h.body.holdId);
        }
      },
    ],
    // Confirm without a hold (an implicit hold of the resolution, if any, is used).
    [
      20,
      async () => {
        const r = await resolve(pick(pick(providers).services));
        if (!r || r.options.length === 0) return;
        await confirm(r.resolutionId, pick(r.options.slice(0, 6)).optionId);
      },
    ],
    // v1: read the slots of a provider and book one (free or not).
    [
      20,
      async () => {
        const p = pick(providers);
        const serviceId = pick(p.services);
        const s = await call('GET /api/v1/slots', (api) =>
          api.get(`/api/v1/slots?providerId=${p.id}&eventTypeId=${serviceId}&date=${day}`),
        );
        const slots = (s.body?.slots ?? []) as { id: string; available: boolean }[];
        if (slots.length === 0) return;
        const free = slots.filter((x) => x.available);
        const slot = free.length > 0 && rnd() < 0.8 ? pick(free) : pick(slots);
        const r = await call('POST /api/v1/bookings', (api) =>
          api.post('/api/v1/bookings', { providerId: p.id, serviceId, slotId: slot.id, attendee: customer }),
        );
        if (r.status === 200) {
          ack.v1Creates.push(r.body.data.id);
          known.push({ id: r.body.data.id, token: r.body.data.tokenToConfirm });
        }
      },
    ],
    [
      10,
      async () => {
        const b = known.length > 0 ? pick(known) : undefined;
        if (!b) return;
        const r = await call('POST /api/v1/bookings/:id/cancel', (api) =>
          api.post(`/api/v1/bookings/${b.id}/cancel`, { reason: 'soak' }),
        );
        if (r.status === 200) ack.cancels.push(b.id);
      },
    ],
    [
      15,
      async () => {
        const b = known.length > 0 ? pick(known) : undefined;
        if (!b) return;
        const minutes = 9 * 60 + 15 * Math.floor(rnd() * 12);
        const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
        const r = await call('POST /api/v1/bookings/:id/reschedule', (api) =>
          api.post(`/api/v1/bookings/${b.id}/reschedule`, { date: day, time }),
        );
        if (r.status === 200) {
          ack.reschedules.push({ from: b.id, to: r.body.data.id });
          known.push({ id: r.body.data.id });
        }
      },
    ],
    [
      5,
      async () => {
        const withToken = known.filter((x) => x.token);
        if (withToken.length === 0) return;
        const b = pick(withToken);
        const r = await call('GET /api/v1/bookings/:id/confirm', (_api, base) =>
          request(base, 'GET', `/api/v1/bookings/${b.id}/confirm?token=${b.token}`, {
            headers: { accept: 'application/json' },
          }),
        );
        if (r.status === 200) ack.confirmedLinks.push(b.id);
      },
    ],
  ];
  const totalWeight = actions.reduce((s, [w]) => s + w, 0);
  const nextAction = () => {
    let x = rnd() * totalWeight;
    for (const [w, run] of actions) {
      if ((x -= w) < 0) return run;
    }
    return actions[0]![1];
  };

  const t0 = Date.now();
  const deadline = t0 + SOAK_MS;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < deadline) await nextAction()();
    }),
  );
  const byOutcome = new Map<string, number>();
  for (const c of calls) {
    const k = `${c.route} ${c.status}${c.code ? ` ${c.code}` : ''}`;
    byOutcome.set(k, (byOutcome.get(k) ?? 0) + 1);
  }
  t.log(
    `${calls.length} calls in ${Date.now() - t0} ms:\n${[...byOutcome]
      .sort()
      .map(([k, n]) => `  ${k}: ${n}`)
      .join('\n')}`,
  );

  // Zero 5xx, and every other failure is one the route declares (CONTRACT part 1 / openapi.json).
  const fiveXx = calls.filter((c) => c.status >= 500);
  // With the service's own log line of each (the children log errors only).
  const logOf = (c: Call) =>
    c.requestId
      ? procs
          .flatMap((p) => p.output().split('\n'))
          .filter((l) => l.includes(c.requestId!))
          .map((l) => l.slice(0, 1500))
      : [];
  t.deepEqual(
    fiveXx.map((c) => ({ route: c.route, status: c.status, via: c.via, body: c.body, log: logOf(c) })),
    [],
    'no call answered 5xx',
  );
  const declared = new Map(ALL_ROUTES.map((r) => [`${r.method} ${r.path}`, new Set<string>(r.errors ?? [])]));
  const undeclared = calls.filter(
    (c) => c.status >= 400 && c.status < 500 && !declared.get(c.route)?.has(c.code ?? ''),
  );
  t.deepEqual(
    undeclared.slice(0, 10).map((c) => ({ route: c.route, status: c.status, body: c.body })),
    [],
    'every 4xx is a code the route declares',
  );
  // The load really contended: some claims won and some lost.
  t.true(
    ack.confirms.length + ack.v1Creates.length > 10,
    `bookings made: ${ack.confirms.length} confirms, ${ack.v1Creates.length} v1`,
  );
  t.true(
    calls.some((c) => c.code === 'SLOT_UNAVAILABLE'),
    'some claims lost their slot',
  );

  // No two active claims of one provider overlap.
  const overlapping = await db.query(
    `SELECT x.provider_id, x.ref_id AS a, y.ref_id AS b FROM slot_claims x JOIN slot_claims y
       ON x.provider_id = y.provider_id AND x.id < y.id AND x.during && y.during
     WHERE x.active AND y.active AND x.organization_id = $1`,
    [o.org.id],
  );
  t.deepEqual(overlapping.rows, [], 'active claims never overlap');
  // Every pending/confirmed booking has exactly its one active claim, and every active booking claim a live booking.
  const unclaimed = await db.query(
    `SELECT b.id, b.status, (SELECT count(*)::int FROM slot_claims c WHERE c.ref_id = b.id AND c.active AND c.kind = 'booking') AS claims
     FROM bookings b WHERE b.organization_id = $1 AND b.status IN ('pending', 'confirmed')`,
    [o.org.id],
  );
  t.deepEqual(
    unclaimed.rows.filter((r) => r.claims !== 1),
    [],
    'every live booking holds exactly one active claim',
  );
  const orphans = await db.query(
    `SELECT c.ref_id FROM slot_claims c LEFT JOIN bookings b ON b.id = c.ref_id
     WHERE c.organization_id = $1 AND c.active AND c.kind = 'booking' AND (b.id IS NULL OR b.status NOT IN ('pending', 'confirmed'))`,
    [o.org.id],
  );
  t.deepEqual(orphans.rows, [], 'no active booking claim without a live booking');
  // Holds end by their durable timers: none stays active past its lifetime for longer than the timers' lag.
  const lapsedSql = `SELECT ref_id, expires_at FROM slot_claims WHERE organization_id = $1 AND active AND kind = 'hold' AND expires_at < now() - interval '2 seconds'`;
  let lapsed = await db.query(lapsedSql, [o.org.id]);
  for (let i = 0; i < 40 && lapsed.rows.length > 0; i++) {
    await new Promise((res) => setTimeout(res, 250));
    lapsed = await db.query(lapsedSql, [o.org.id]);
  }
  t.deepEqual(lapsed.rows, [], 'no active hold past its lifetime beyond the timer lag');

  // What the clients were told is in the ledger, with its events and audit entries.
  const bookings = new Map(
    (await db.query(`SELECT id, status FROM bookings WHERE organization_id = $1`, [o.org.id])).rows.map((r) => [
      r.id as string,
      r.status as string,
    ]),
  );
  const events = (await db.query(`SELECT type, data FROM events WHERE organization_id = $1`, [o.org.id])).rows as {
    type: string;
    data: Record<string, unknown>;
  }[];
  const audits = (await db.query(`SELECT action, resource_id FROM audit_events WHERE organization_id = $1`, [o.org.id]))
    .rows as { action: string; resource_id: string }[];
  const hasEvent = (type: string, key: string, id: string) => events.some((e) => e.type === type && e.data[key] === id);
  const hasAudit = (action: string, id: string) => audits.some((a) => a.action === action && a.resource_id === id);
  const missing: string[] = [];
  for (const id of ack.holds)
    if (!hasEvent('option.held', 'holdId', id) || !hasAudit('hold.create', id)) missing.push(`hold ${id}`);
  for (const id of ack.releases)
    if (!hasEvent('option.released', 'holdId', id) || !hasAudit('hold.release', id)) missing.push(`release ${id}`);
  for (const id of ack.confirms)
    if (!bookings.has(id) || !hasEvent('booking.confirmed', 'bookingId', id) || !hasAudit('booking.create', id))
      missing.push(`confirm ${id}`);
  for (const id of ack.v1Creates)
    if (!bookings.has(id) || !hasAudit('booking.create', id)) missing.push(`v1 create ${id}`);
  for (const id of ack.confirmedLinks)
    if (!hasEvent('booking.confirmed', 'bookingId', id) || !hasAudit('booking.confirm', id)) missing.push(`link ${id}`);
  for (const id of ack.cancels)
    if (
      bookings.get(id) !== 'cancelled' ||
      !hasEvent('booking.cancelled', 'bookingId', id) ||
      !hasAudit('booking.cancel', id)
    )
      missing.push(`cancel ${id}`);
  for (const { from, to } of ack.reschedules) {
    if (
      bookings.get(from) !== 'rescheduled' ||
      !bookings.has(to) ||
      !hasEvent('booking.rescheduled', 'bookingId', from) ||
      !hasAudit('booking.reschedule', from)
    )
      missing.push(`reschedule ${from} -> ${to}`);
  }
  t.deepEqual(missing, [], 'every acknowledged change is in the ledger with its event and audit entry');

  // Not one deadlock in PostgreSQL either: the lock order prevents them; the services' retry of 40P01 (which would
  // hide one from the clients) is only the safety net. Backends flush their statistics within about a second.
  await new Promise((res) => setTimeout(res, 1500));
  const stats = await db.query('SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()');
  t.is(stats.rows[0].n, 0, 'PostgreSQL detected no deadlock');
  t.log(
    `acknowledged: ${ack.holds.length} holds, ${ack.releases.length} releases, ${ack.confirms.length} confirms, ${ack.v1Creates.length} v1 creates, ${ack.confirmedLinks.length} links, ${ack.cancels.length} cancels, ${ack.reschedules.length} reschedules`,
  );
});
