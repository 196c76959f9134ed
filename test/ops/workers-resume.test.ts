import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { loadConfig } from '../../src/config/load-config.js';
import { createRedis } from '../../src/persistence/redis-client.js';
import { startService, type RunningService } from '../../src/start-service.js';
import { client } from '../helpers/http.js';
import { privateRedisPid, processAlive, waitForExit } from '../helpers/service-process.js';
import { createTestClock } from '../helpers/test-clock.js';
import { createLivePlatformKey } from '../helpers/live-platform-key.js';

// One service (all roles, in this process, with a test clock) on its own supervised private stores, as `npm start`
// runs them, with a webhook receiver and an SMTP server on loopback. Work is left queued (a webhook delivery and a
// confirmation e-mail waiting for their retry, a hold waiting for its expiry timer, two import jobs), then redis-server
// and PostgreSQL are killed with SIGKILL together. Once the service has started them again, every piece of work must
// complete exactly once, without a restart of the service.
const dataDir = join(process.env.TEST_DATA_DIR ?? '/tmp', `workers-resume-${randomBytes(4).toString('hex')}`);
let svc: RunningService | undefined;
let receiver: Server | undefined;
let smtp: SMTPServer | undefined;

test.after.always(async () => {
  await svc?.stop().catch(() => undefined);
  receiver?.closeAllConnections();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
  // Whatever of our own stores is left (a failed start-up, a stop that failed) is killed; only ours, checked by cwd.
  for (const pid of [privateRedisPid(dataDir), postmasterPid()]) {
    if (pid && processAlive(pid) && ownedByUs(pid)) {
      process.kill(pid, 'SIGKILL');
      await waitForExit(pid, 5000);
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

function postmasterPid(): number | undefined {
  const file = join(dataDir, 'postgres', 'data', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]?.trim());
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/**
 * The processes working in `dir`: PostgreSQL's backends share their postmaster's working directory (a zombie, its
 * working directory gone, is not one).
 */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === dir;
      } catch {
        return false;
      }
    });
}

/** Whether `pid` is a store working in this file's data directory (guards against a reused pid). */
function ownedByUs(pid: number): boolean {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    return cwd === join(dataDir, 'redis') || cwd === join(dataDir, 'postgres', 'data');
  } catch {
    return false;
  }
}

/** Polls `read` until it answers something, at most `ms`; throws with `what` otherwise. */
async function eventually<T>(
  what: string,
  ms: number,
  read: () => Promise<T | undefined> | T | undefined,
  seen: () => unknown = () => '',
): Promise<T> {
  const deadline = Date.now() + ms;
  let failure: unknown;
  for (;;) {
    const v = await Promise.resolve()
      .then(read)
      .catch((err) => {
        failure = err;
        return undefined;
      });
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${ms} ms ${String(failure ?? '')} ${JSON.stringify(await Promise.resolve().then(seen).catch(String))}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

const DAY_MS = 86_400_000;
const everyDay = (start: string, end: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
      d,
      { enabled: true, slots: [{ start, end }] },
    ]),
  );

test('kill -9 of redis-server and PostgreSQL with work queued: webhook, e-mail, hold expiry and imports each complete exactly once after the restart', async (t) => {
  t.timeout(120_000);
  const wall = Date.now();
  mkdirSync(dataDir, { recursive: true });

  // The receiver answers 503 until told otherwise, so the first delivery attempt fails and a retry waits.
  const webhooks: { id: string; status: number }[] = [];
  let webhookStatus = 503;
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      webhooks.push({ id: String(req.headers['webhook-id']), status: webhookStatus });
      res.statusCode = webhookStatus;
      res.end();
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  // The SMTP server refuses (451) until told otherwise, so the first e-mail attempt fails and a retry waits.
  const mails: ParsedMail[] = [];
  const refusals: string[] = [];
  let smtpAccepts = false;
  smtp = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (smtpAccepts) return cb();
      refusals.push(address.address);
      return cb(Object.assign(new Error('try again later'), { responseCode: 451 }));
    },
    onData(stream, _session, cb) {
      simpleParser(stream).then(
        (m) => {
          mails.push(m);
          cb();
        },
        (err: Error) => cb(err),
      );
    },
  });
  await new Promise<void>((r) => smtp!.listen(0, '127.0.0.1', () => r()));
  const smtpPort = ((smtp as unknown as { server: import('node:net').Server }).server.address() as AddressInfo).port;

  const clock = createTestClock();
  const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
  // No store URLs: the service starts and supervises redis-server and PostgreSQL under DATA_DIR, as `npm start` does.
  const config = loadConfig({
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    SERVICE_BOOTSTRAP_PLATFORM_KEY: platformKey,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    WEBHOOK_ALLOW_INSECURE_URLS: '1',
    WEBHOOK_RETRY_DELAYS_SECONDS: '20,60',
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  const failures: string[] = [];
  svc = await startService(config, { clock, log: (msg) => failures.push(msg) });
  const url = `http://127.0.0.1:${svc.httpPort}`;
  const db = svc.deps.db;

  // A live organization (e-mail goes out by SMTP for live keys) with a webhook on booking.confirmed.
  const liveKey = await createLivePlatformKey({ db }, platformKey, clock());
  const org = (
    await client(url, liveKey).post('/api/v2/organizations', {
      externalId: 'resume',
      name: 'Resume',
      settings: { plan: 'launch' },
    })
  ).body;
  const platform = client(url, liveKey, { 'service-organization-id': org.id });
  const orgKey = (
    await platform.post('/api/v2/api-keys', { type: 'organization_live', organizationId: org.id, name: 'desk' })
  ).body.key as string;
  const api = client(url, orgKey);
  t.is(
    (
      await platform.put('/api/v2/webhooks', {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        events: ['booking.confirmed'],
      })
    ).status,
    200,
  );
  const provider = (
    await platform.post('/api/v2/providers', { externalId: 'resume-provider', displayName: 'Dr. Resume' })
  ).body;
  const service = (await api.post('/api/v2/services', { providerId: provider.id, title: 'Session', duration: 30 }))
    .body;
  t.is(
    (
      await api.post('/api/v2/calendar-connections', {
        providerId: provider.id,
        timezone: 'UTC',
        days: everyDay('00:00', '23:59'),
      })
    ).status,
    200,
  );
  const day = new Date(clock().getTime() + 3 * DAY_MS).toISOString().slice(0, 10);
  const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  const resolve = async () => {
    const r = await api.post(
      '/api/v2/resolutions',
      { serviceId: service.id, dateRange: { from: day, to: nextDay }, maxOptionsPerProvider: 10 },
      { 'idempotency-key': randomUUID() },
    );
    t.is(r.status, 200, JSON.stringify(r.body));
    return r.body as { resolutionId: string; options: { optionId: string }[] };
  };

  // 1. A v2 booking: its booking.confirmed delivery is refused once and waits 20 s (test clock) for its retry.
  const r1 = await resolve();
  const booked = await api.post(
    `/api/v2/resolutions/${r1.resolutionId}/confirm`,
    { optionId: r1.options[0]!.optionId, customer: { name: 'Pat Doe', email: 'pat@example.com' } },
    { 'idempotency-key': randomUUID() },
  );
  t.is(booked.status, 200, JSON.stringify(booked.body));
  const eventId = await eventually(
    'the booking.confirmed event',
    10_000,
    async () =>
      (
        await db.query(`SELECT id FROM events WHERE type = 'booking.confirmed' AND data->>'bookingId' = $1`, [
          booked.body.id,
        ])
      ).rows[0]?.id as string | undefined,
  );
  await eventually(
    'the first delivery attempt (refused) and its retry scheduled',
    15_000,
    async () => {
      const row = (
        await db.query(
          `SELECT status, automatic_attempts, next_attempt_at FROM webhook_deliveries WHERE event_id = $1`,
          [eventId],
        )
      ).rows[0];
      return webhooks.some((w) => w.id === eventId) &&
        row?.status === 'failed' &&
        row.automatic_attempts === 1 &&
        row.next_attempt_at?.getTime() > clock().getTime()
        ? row
        : undefined;
    },
    async () => ({ webhooks, rows: (await db.query(`SELECT * FROM webhook_deliveries`)).rows, now: clock() }),
  );
  // 2. A v1 booking: its confirmation e-mail is refused once and waits 5 s (test clock) for its retry.
  const slots = (await api.get(`/api/v1/slots?providerId=${provider.id}&eventTypeId=${service.id}&date=${day}`)).body
    .slots as { id: string; available: boolean }[];
  const v1 = await api.post('/api/v1/bookings', {
    providerId: provider.id,
    serviceId: service.id,
    slotId: slots.filter((s) => s.available).at(-1)!.id,
    attendee: { name: 'Ada Mail', email: 'ada@example.com' },
  });
  t.is(v1.status, 200, JSON.stringify(v1.body));
  const emailRow = await eventually('the first e-mail attempt (refused) and its retry scheduled', 15_000, async () => {
    const row = (
      await db.query(`SELECT id, attempts, status, next_attempt_at FROM email_outbox WHERE booking_id = $1`, [
        v1.body.data.id,
      ])
    ).rows[0];
    return row && row.attempts === 1 && row.status === 'pending' && row.next_attempt_at.getTime() > clock().getTime()
      ? row
      : undefined;
  });
  // 3. A hold of 30 s: its expiry is a durable timer in Redis.
  const r2 = await resolve();
  const hold = await api.post(`/api/v2/resolutions/${r2.resolutionId}/options/${r2.options[1]!.optionId}/hold`, {
    ttlSeconds: 30,
  });
  t.is(hold.status, 200, JSON.stringify(hold.body));
  // Redis keeps its AOF with `appendfsync everysec`: a rewrite makes the timer durable before the kill, so what is
  // tested is the resume, not the last second a crash may take (docs/operations.md "Store loss and recovery").
  const probe = await createRedis(svc.redisUrl);
  try {
    await probe.sendCommand(['BGREWRITEAOF']);
    await eventually(
      'the AOF rewrite',
      15_000,
      async () =>
        /aof_rewrite_in_progress:0/.test(String(await probe.sendCommand(['INFO', 'persistence']))) &&
        /aof_rewrite_scheduled:0/.test(String(await probe.sendCommand(['INFO', 'persistence']))),
    );
  } finally {
    await probe.close().catch(() => undefined);
  }
  const redisKills = privateRedisPid(dataDir)!;
  const pgKills = postmasterPid()!;
  t.true(ownedByUs(redisKills) && ownedByUs(pgKills), "both stores run under the test's data directory");
  // 4. Two imports: the first (500 rows) is being worked on when the stores die, the second waits behind it.
  const rows = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ externalId: `${prefix}-${i}`, displayName: `Dr. ${prefix} ${i}` }));
  const big = await platform.post('/api/v2/provider-imports', { providers: rows('big', 500) });
  const small = await platform.post('/api/v2/provider-imports', { providers: rows('small', 20) });
  t.is(big.status, 202, JSON.stringify(big.body));
  t.is(small.status, 202, JSON.stringify(small.body));
  // The first is claimed by the import worker (at most one job at a time per process); the kill lands while it runs,
  // or just after it finished on a fast machine (the figures say which).
  await eventually(
    'the first import claimed',
    10_000,
    async () =>
      (await db.query(`SELECT status FROM provider_imports WHERE id = $1`, [big.body.importId])).rows[0]?.status !==
      'validating',
  );
  const importState = async () =>
    (
      await db.query(`SELECT id, status, attempts FROM provider_imports WHERE id = ANY($1)`, [
        [big.body.importId, small.body.importId],
      ])
    ).rows
      .map((r) => `${r.id === big.body.importId ? 'big' : 'small'} ${r.status} (attempt ${r.attempts})`)
      .sort()
      .join(', ');
  const importsBefore = await importState();

  // Both stores die at once; nothing is in flight (every piece of work waits for the clock or for the import worker).
  const pgDir = join(dataDir, 'postgres', 'data');
  const pgProcesses = processesIn(pgDir);
  const killedAt = Date.now();
  process.kill(redisKills, 'SIGKILL');
  process.kill(pgKills, 'SIGKILL');
  // The postmaster's backends outlive it until each notices (a loaded host: a while), and until then they still run
  // statements and commit, asynchronous commits (the queues' bookkeeping) only into memory the restart does not have:
  // work made due now could be done against them and then undone, and done again (at-least-once). So the work falls
  // due once they are gone (the workers' passes then fail), and the receivers now accept.
  const orphans = [...new Set([...pgProcesses, ...processesIn(pgDir)])].filter((pid) => pid !== pgKills);
  const orphansGoneAfter = await eventually('the old backends gone', 15_000, () =>
    orphans.every((pid) => !processesIn(pgDir).includes(pid)) ? Date.now() - killedAt : undefined,
  );
  clock.advance(130_000);
  webhookStatus = 200;
  smtpAccepts = true;

  const readyAt = await eventually('/readyz 200 again', 30_000, async () => {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3000) });
    return res.status === 200 ? Date.now() : undefined;
  });
  t.not(privateRedisPid(dataDir), redisKills, 'redis-server was started again');
  t.not(postmasterPid(), pgKills, 'PostgreSQL was started again');

  // Each piece of work completes, once.
  const delivered = await eventually('the webhook delivered', 30_000, async () =>
    (
      await db.query(`SELECT status, automatic_attempts AS attempts FROM webhook_deliveries WHERE event_id = $1`, [
        eventId,
      ])
    ).rows.find((r) => r.status === 'delivered'),
  );
  const sent = await eventually('the e-mail sent', 30_000, async () =>
    (await db.query(`SELECT status, attempts FROM email_outbox WHERE id = $1`, [emailRow.id])).rows.find(
      (r) => r.status === 'sent',
    ),
  );
  // A timer whose handler failed during the outage (Redis back, PostgreSQL not yet) is given back due 2 s later, and a
  // timer claimed by a poll the kill cut short waits for its 30 s lease: the test clock moves on 1 s per poll.
  const expired = await eventually(
    'the hold expired',
    30_000,
    async () => {
      clock.advance(1000);
      const h = await api.get(`/api/v2/resolutions/${r2.resolutionId}/options/${r2.options[1]!.optionId}/hold`);
      const released = (
        await db.query(
          `SELECT count(*)::int AS n FROM events WHERE type = 'option.released' AND data->>'holdId' = $1`,
          [hold.body.holdId],
        )
      ).rows[0].n as number;
      return h.body.status === 'expired' && released > 0 ? { released } : undefined;
    },
    async () => ({
      hold: (await api.get(`/api/v2/resolutions/${r2.resolutionId}/options/${r2.options[1]!.optionId}/hold`)).body,
      events: (await db.query(`SELECT type, data FROM events WHERE type LIKE 'option.%'`)).rows,
      now: clock(),
    }),
  );
  const imports = await eventually('both imports finished', 40_000, async () => {
    const list = (
      await db.query(`SELECT id, status, attempts, summary FROM provider_imports WHERE id = ANY($1)`, [
        [big.body.importId, small.body.importId],
      ])
    ).rows;
    return list.length === 2 && list.every((r) => r.status === 'completed' || r.status === 'failed') ? list : undefined;
  });
  const doneAt = Date.now();

  t.deepEqual(
    imports.map((r) => r.status),
    ['completed', 'completed'],
    JSON.stringify(imports),
  );
  const made = (
    await db.query(
      `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS d FROM providers WHERE organization_id = $1 AND (external_id LIKE 'big-%' OR external_id LIKE 'small-%')`,
      [org.id],
    )
  ).rows[0];
  t.deepEqual(made, { n: 520, d: 520 }, 'every imported provider exists once');
  t.deepEqual(
    webhooks.filter((w) => w.id === eventId).map((w) => w.status),
    [503, 200],
    `the event reached the receiver once refused, then once accepted; attempts recorded: ${JSON.stringify(
      (
        await db.query(
          `SELECT a.attempt, a.status_code, a.attempted_at FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1 ORDER BY a.attempt`,
          [eventId],
        )
      ).rows,
    )}; worker failures: ${JSON.stringify(failures.slice(-12))}`,
  );
  t.deepEqual(refusals, ['ada@example.com'], 'the e-mail was refused once, before the outage');
  t.is(
    mails.filter((m) => m.headers.get('x-service-email-id') === emailRow.id).length,
    1,
    'the e-mail was received once',
  );
  t.is(expired.released, 1, 'the hold was released once, by its timer');
  const actor = await api.get(`/api/v2/inspector/actors/hold/${hold.body.holdId}`);
  t.is(actor.body?.state, 'expired', 'the hold actor took the expiry');
  // Nothing fires twice later: the rows are final, and no second copy arrives within another worker pass or two.
  await new Promise((r) => setTimeout(r, 1500));
  t.is(webhooks.filter((w) => w.id === eventId && w.status === 200).length, 1);
  t.is(mails.filter((m) => m.headers.get('x-service-email-id') === emailRow.id).length, 1);
  t.log(
    `imports before the kill: ${importsBefore}; stores killed, ${orphans.length} old backends gone after ${orphansGoneAfter} ms, /readyz 200 again after ${readyAt - killedAt} ms, all work done ${doneAt - killedAt} ms after the kill ` +
      `(webhook ${delivered.status} after ${delivered.attempts} attempts, e-mail ${sent.status} after ${sent.attempts}, imports ${await importState()}); ` +
      `${failures.length} worker failures logged during the outage; wall ${((Date.now() - wall) / 1000).toFixed(1)} s`,
  );
});
