import test, { type ExecutionContext } from 'ava';
import { Agent, request as httpRequest } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DRAIN_GRACE_MS } from '../../src/service/lifetime.js';
import { createDatabase } from '../../src/persistence/database.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

// Two service processes (all roles, separate OS processes) on one PostgreSQL and one Redis, behind a client that acts
// like a load balancer: keep-alive connections to both, health from /readyz, and a retry on the other process only when
// a request got no answer (refused or reset before a response) or was shed (503 with Retry-After), with the same
// Idempotency-Key. One process gets SIGTERM in the middle of a burst of v2 bookings and is started again.
let stores: TestStores | undefined;
const started: ServiceProcess[] = [];
const dataDirs: string[] = [];

test.after.always(async () => {
  for (const p of started) await p.kill('SIGKILL').catch(() => undefined);
  await stores?.stop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** The drain bound of a stop (DRAIN_GRACE_MS), plus the rest of a stop on external stores. */
const DRAIN_BOUND_MS = DRAIN_GRACE_MS + 2_000;
const DAY_MS = 86_400_000;
const everyDay = (start: string, end: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
      d,
      { enabled: true, slots: [{ start, end }] },
    ]),
  );
const customer = { name: 'Pat Doe', email: 'pat@example.com' };
const asSvc = (p: ServiceProcess) => ({ url: p.url, platformKey: p.platformKey }) as unknown as TestService;

/** One process as the balancer sees it. */
interface Backend {
  name: string;
  url: string;
  agent: Agent;
  up: boolean;
}

/** One exchange with one process: an answer, or a transport failure before any answer. */
type Exchange =
  | { kind: 'answer'; status: number; body: any; retryAfter: string | null; connectionClose: boolean }
  | { kind: 'failure'; code: string; reused: boolean; answered: boolean };

/** Sends one request on `b`'s keep-alive agent, bounded to 15 s. */
function exchange(
  b: Backend,
  method: string,
  path: string,
  key: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const u = new URL(path, b.url);
    let answered = false;
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent: b.agent,
        timeout: 15_000,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON */
          }
          resolve({
            kind: 'answer',
            status: res.statusCode ?? 0,
            body: parsed,
            retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
            connectionClose: res.headers.connection === 'close',
          });
        });
        res.on('error', (err: NodeJS.ErrnoException) =>
          resolve({ kind: 'failure', code: err.code ?? err.message, reused: req.reusedSocket, answered }),
        );
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ kind: 'failure', code: err.code ?? err.message, reused: req.reusedSocket, answered }),
    );
    req.end(payload);
  });
}

/** Everything the balancer saw: every exchange (with the process and time), and what it retried. */
interface Seen {
  at: number;
  backend: string;
  path: string;
  exchange: Exchange;
}

/**
 * A balancer over `backends`: round robin over the processes /readyz calls up (polled every 100 ms on a connection of
 * its own); a request that got no answer on a fresh connection (ECONNREFUSED, ECONNRESET), or a 503 with Retry-After,
 * is sent again to the other process with the same headers (Idempotency-Key included). A reset on a reused keep-alive
 * connection before any answer is retried the same way and counted apart.
 */
function balancer(backends: Backend[], key: string) {
  const seen: Seen[] = [];
  const t0 = Date.now();
  let turn = 0;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      await Promise.all(
        backends.map(async (b) => {
          const r = await exchange(
            { ...b, agent: new Agent({ keepAlive: false }) },
            'GET',
            '/readyz',
            key,
            undefined,
            {},
          );
          b.up = r.kind === 'answer' && r.status === 200;
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const pick = (avoid?: Backend) => {
    const up = backends.filter((b) => b.up && b !== avoid);
    const pool = up.length > 0 ? up : backends.filter((b) => b !== avoid);
    return pool[turn++ % pool.length]!;
  };
  const send = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Exchange> => {
    let b = pick();
    let last: Exchange | undefined;
    for (let attempt = 1; attempt <= 12; attempt++) {
      const x = await exchange(b, method, path, key, body, headers);
      seen.push({ at: Date.now() - t0, backend: b.name, path, exchange: x });
      last = x;
      const shed = x.kind === 'answer' && x.status === 503 && x.retryAfter !== null;
      const unanswered =
        x.kind === 'failure' &&
        !x.answered &&
        (x.code === 'ECONNREFUSED' || x.code === 'ECONNRESET' || x.code === 'EPIPE');
      if (!shed && !unanswered) return x;
      if (x.kind === 'failure') b.up = false;
      // Both processes shed in turn: wait as told before the next round.
      if (shed && attempt % 2 === 0)
        await new Promise((r) => setTimeout(r, Math.min(1000, Number(x.kind === 'answer' ? x.retryAfter : 1) * 1000)));
      b = pick(b);
    }
    return last!;
  };
  return {
    send,
    seen,
    t0,
    stop: async () => {
      polling = false;
      await poll;
    },
  };
}

type Org = Awaited<ReturnType<typeof newOrganization>>;

/** Every booking of `providerId` in the ledger and any two live ones that overlap. */
async function ledger(databaseUrl: string, providerId: string) {
  const db = createDatabase(databaseUrl, { max: 1 });
  try {
    const rows = (await db.query(`SELECT id, status, start_at FROM bookings WHERE provider_id = $1`, [providerId]))
      .rows as { id: string; status: string; start_at: Date }[];
    const overlaps = (
      await db.query(
        `SELECT x.id, y.id FROM bookings x JOIN bookings y ON x.provider_id = y.provider_id AND x.id < y.id AND tstzrange(x.start_at, x.end_at) && tstzrange(y.start_at, y.end_at)
       WHERE x.status IN ('pending', 'confirmed') AND y.status IN ('pending', 'confirmed') AND x.provider_id = $1`,
        [providerId],
      )
    ).rows;
    return { rows, overlaps };
  } finally {
    await db.close();
  }
}

/** Waits until `ok()` holds, at most `ms`; answers whether it held. */
async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return ok();
}

function assertAnswers(t: ExecutionContext, seen: Seen[]) {
  const answers = seen.flatMap((s) => (s.exchange.kind === 'answer' ? [{ ...s, x: s.exchange }] : []));
  const bad5xx = answers.filter(
    ({ x }) =>
      x.status >= 500 && !(x.status === 503 && x.body?.error?.code === 'SERVICE_UNAVAILABLE' && x.retryAfter !== null),
  );
  t.deepEqual(
    bad5xx.map(({ backend, path, x }) => `${backend} ${path} ${x.status} ${JSON.stringify(x.body)}`),
    [],
    'no 5xx but 503 SERVICE_UNAVAILABLE with Retry-After',
  );
  const unexpected = answers.filter(
    ({ x }) =>
      x.status !== 200 &&
      x.status < 500 &&
      !(x.status === 409 && ['SLOT_UNAVAILABLE', 'HOLD_CONFLICT'].includes(x.body?.error?.code)),
  );
  t.deepEqual(
    unexpected.map(({ backend, path, x }) => `${backend} ${path} ${x.status} ${x.body?.error?.code}`),
    [],
    'only 200, 409 for a slot taken meanwhile, or a 503 shed',
  );
  const lost = seen.flatMap((s) =>
    s.exchange.kind === 'failure' &&
    (s.exchange.answered || !['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(s.exchange.code))
      ? [`${s.backend} ${s.path} ${s.exchange.code}`]
      : [],
  );
  t.deepEqual(lost, [], 'no request cut off after its answer began, none timed out');
}

test('SIGTERM of one of two processes under a burst of bookings, then its restart: no request lost, no 5xx but 503, no double booking', async (t) => {
  t.timeout(150_000);
  const wall = Date.now();
  stores = await startTestStores();
  const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;
  const env = { RATE_LIMIT_PER_MINUTE: '100000' };
  const start = async (name: string) => {
    const dataDir = join(process.env.TEST_DATA_DIR ?? '/tmp', `rolling-${name}-${randomBytes(4).toString('hex')}`);
    mkdirSync(dataDir, { recursive: true });
    dataDirs.push(dataDir);
    const p = await startServiceProcess({
      databaseUrl: stores!.databaseUrl,
      redisUrl: stores!.redisUrl,
      platformKey,
      dataDir,
      env,
    });
    started.push(p);
    return p;
  };
  // The first process bootstraps the platform key; the second starts while the first is given its data.
  const survivor = await start('b');
  const [victim, { o, provider, service }] = await Promise.all([
    start('a'),
    (async () => {
      const org: Org = await newOrganization(asSvc(survivor), `rolling-${randomUUID().slice(0, 8)}`);
      return {
        o: org,
        ...(await providerWithService(
          org,
          { externalId: 'rolling' },
          { title: 'Session', duration: 30, schedule: { timezone: 'UTC', days: everyDay('00:00', '23:59') } },
        )),
      };
    })(),
  ]);

  const backends: Backend[] = [
    { name: 'a', url: victim.url, agent: new Agent({ keepAlive: true, maxSockets: 8 }), up: true },
    { name: 'b', url: survivor.url, agent: new Agent({ keepAlive: true, maxSockets: 8 }), up: true },
  ];
  const lb = balancer(backends, o.key);
  // Flows of resolve → hold → confirm; a dozen flows share a day's top options, so some race for a slot.
  const days = Array.from({ length: 20 }, (_, i) => new Date(Date.now() + (3 + i) * DAY_MS).toISOString().slice(0, 10));
  const acked: { bookingId: string; start: string; confirmedBy: string }[] = [];
  let flows = 0;
  let stopping = false;
  const loop = async () => {
    while (!stopping) {
      const n = flows++;
      const from = days[Math.floor(n / 12) % days.length]!;
      const to = new Date(Date.parse(`${from}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
      const r = await lb.send(
        'POST',
        '/api/v2/resolutions',
        { serviceId: service.id, dateRange: { from, to }, maxOptionsPerProvider: 10 },
        { 'idempotency-key': randomUUID() },
      );
      if (r.kind !== 'answer' || r.status !== 200 || r.body.options.length === 0) continue;
      const option = r.body.options[n % r.body.options.length] as { optionId: string; slot: { start: string } };
      const h = await lb.send('POST', `/api/v2/resolutions/${r.body.resolutionId}/options/${option.optionId}/hold`, {
        ttlSeconds: 60,
      });
      if (h.kind !== 'answer' || h.status !== 200) continue;
      const c = await lb.send(
        'POST',
        `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
        { optionId: option.optionId, customer, holdId: h.body.holdId },
        { 'idempotency-key': randomUUID() },
      );
      if (c.kind === 'answer' && c.status === 200)
        acked.push({ bookingId: c.body.id, start: option.slot.start, confirmedBy: lb.seen.at(-1)!.backend });
    }
  };
  const loops = Array.from({ length: 6 }, loop);
  let restarted: ServiceProcess | undefined;
  let figures = '';
  try {
    t.true(await until(() => acked.length >= 10, 30_000), 'bookings flow before the SIGTERM');
    const signalledAt = Date.now() - lb.t0;
    const exitStart = Date.now();
    void victim.kill('SIGTERM', 30_000);
    t.true(await until(() => victim.exited(), 30_000), 'the process under SIGTERM exits');
    const exitMs = Date.now() - exitStart;
    t.is(victim.exitCode(), 0, `exit code 0:\n${victim.output().slice(-2000)}`);
    t.true(exitMs <= DRAIN_BOUND_MS, `exited within its drain bound (${exitMs} ms)`);

    // Started again (on a port of its own: the balancer learns the new address, as from service discovery).
    const ackedBefore = acked.length;
    const restartStart = Date.now();
    restarted = await start('a-again');
    const readyMs = Date.now() - restartStart;
    backends[0]!.url = restarted.url;
    backends[0]!.agent.destroy();
    backends[0]!.agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const restartedAt = Date.now() - lb.t0;
    t.true(
      await until(
        () =>
          lb.seen.some(
            (s) => s.backend === 'a' && s.at > restartedAt && s.exchange.kind === 'answer' && s.exchange.status === 200,
          ) && acked.length >= ackedBefore + 10,
        20_000,
      ),
      'the restarted process serves bookings',
    );
    const drained = lb.seen.filter((s) => s.backend === 'a' && s.at >= signalledAt && s.at <= signalledAt + exitMs);
    figures =
      `SIGTERM ${signalledAt} ms into the burst; exit 0 after ${exitMs} ms; restarted process ready in ${readyMs} ms; ` +
      `answers from the draining process after the signal: ${drained.filter((s) => s.exchange.kind === 'answer').length} ` +
      `(${drained.filter((s) => s.exchange.kind === 'answer' && s.exchange.connectionClose).length} with Connection: close); ` +
      `resets of a reused connection before an answer (retried): ${
        lb.seen
          .filter((s) => s.exchange.kind === 'failure' && s.exchange.reused)
          .map(
            (s) =>
              `${s.backend} ${s.path.replace(/[0-9a-f-]{20,}|res_\w+|opt_\w+/g, ':id')} at ${s.at - signalledAt} ms after the signal`,
          )
          .join('; ') || 'none'
      }`;
  } finally {
    stopping = true;
    await Promise.all(loops);
    await lb.stop();
    for (const b of backends) b.agent.destroy();
  }

  const readyz = await fetch(`${restarted!.url}/readyz`);
  t.is(readyz.status, 200, 'the restarted process answers 200 /readyz');
  assertAnswers(t, lb.seen);

  // Every acknowledged booking is there, read through either process; the ledger holds nothing else and no overlap.
  for (const [i, a] of acked.entries()) {
    const read = await fetch(`${(i % 2 ? survivor : restarted!).url}/api/v2/bookings/${a.bookingId}`, {
      headers: { authorization: `Bearer ${o.key}` },
    });
    const body = (await read.json()) as { status?: string; slot?: { start?: string }; start?: string };
    t.is(read.status, 200, `acknowledged booking ${a.bookingId} is readable`);
    t.is(body.status, 'confirmed');
  }
  t.is(new Set(acked.map((a) => a.start)).size, acked.length, 'no slot acknowledged twice');
  const { rows, overlaps } = await ledger(stores.databaseUrl, provider.id);
  t.deepEqual(overlaps, [], 'no overlapping live bookings');
  t.deepEqual(
    rows.map((r) => r.id).sort(),
    acked.map((a) => a.bookingId).sort(),
    'the ledger holds exactly the acknowledged bookings',
  );

  const count = (f: (s: Seen) => boolean) => lb.seen.filter(f).length;
  const statuses = new Map<string, number>();
  for (const s of lb.seen) {
    const k =
      s.exchange.kind === 'answer'
        ? `${s.exchange.status}${s.exchange.status === 200 ? '' : ` ${s.exchange.body?.error?.code ?? ''}`}`
        : `${s.exchange.code}${s.exchange.reused ? ' (reused connection)' : ''}`;
    statuses.set(k, (statuses.get(k) ?? 0) + 1);
  }
  t.log(
    `${figures}; ${flows} flows, ${lb.seen.length} exchanges, ${acked.length} bookings confirmed ` +
      `(${acked.filter((a) => a.confirmedBy === 'a').length} by process a); retried on the other process: ${count((s) => s.exchange.kind === 'failure' || (s.exchange.kind === 'answer' && s.exchange.status === 503))}; ` +
      `exchanges by outcome: ${[...statuses].map(([k, n]) => `${k} x ${n}`).join(', ')}; wall ${((Date.now() - wall) / 1000).toFixed(1)} s`,
  );
});
