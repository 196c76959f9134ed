import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../src/launcher/find-free-port.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { createTestDatabase } from '../helpers/test-database.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const QUICKSTART = join(ROOT, 'docs/quickstart.md');

/** A shell block of the quickstart and how the test uses it (its `<!-- quickstart: kind -->` marker). */
interface Block {
  kind: 'run' | 'restart' | 'receiver';
  text: string;
}

/** The marked ```sh blocks of the quickstart, in order. */
function quickstartBlocks(): Block[] {
  const md = readFileSync(QUICKSTART, 'utf8');
  return [...md.matchAll(/<!-- quickstart: (\w+) -->\n```sh\n([\s\S]*?)\n```/g)].map((m) => {
    if (!['run', 'restart', 'receiver'].includes(m[1]!)) throw new Error(`unknown quickstart block kind ${m[1]}`);
    return { kind: m[1] as Block['kind'], text: m[2]! };
  });
}

/**
 * Replaces the values the doc tells the reader to set (assignments on lines marked `# yours`) and nothing else;
 * throws when a marked assignment has no value given or a given value is not used.
 */
function substitute(text: string, values: Record<string, string>, used: Set<string>): string {
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes('# yours')) return line;
      return line.replace(/\b([A-Z_]+)=(\S+)/g, (_all, name: string) => {
        const value = values[name];
        if (value === undefined) throw new Error(`no test value for ${name} in: ${line}`);
        used.add(name);
        return `${name}=${value}`;
      });
    })
    .join('\n');
}

/** A bash process fed block by block on stdin, so the blocks share variables and functions as in one terminal. */
function startShell(env: NodeJS.ProcessEnv) {
  const child = spawn('bash', [], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  // -e, -u and pipefail: a command that fails (an error answer makes `pick` exit 1) ends the run with its output.
  child.stdin.write('set -euo pipefail\n');
  let n = 0;
  return {
    child,
    stderr: () => err,
    /** Runs `text` in the shell and answers what it printed on stdout. */
    async run(text: string, timeoutMs = 60_000): Promise<string> {
      const marker = `__quickstart_block_${++n}_done__`;
      const start = out.length;
      child.stdin.write(`${text}\necho ${marker}\n`);
      const until = Date.now() + timeoutMs;
      for (;;) {
        const at = out.indexOf(`${marker}\n`, start);
        if (at >= 0) return out.slice(start, at);
        if (exited || Date.now() > until)
          throw new Error(
            `${exited ? 'the shell exited' : 'timed out'} in block:\n${text}\nstdout:\n${out.slice(start)}\nstderr:\n${err}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** Ends a detached child's whole process group (npx -> tsx -> node), then waits for the child itself. */
async function stopGroup(child: ChildProcess | undefined) {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 5000);
  await gone;
  clearTimeout(timer);
}

/** The fields of a webhook delivery the test reads. */
interface Delivery {
  eventId: string;
  status: string;
  statusCode: number;
}

/** Waits (bounded) until `read()` matches `pattern`; answers the match. */
async function waitForText(read: () => string, pattern: RegExp, what: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(read());
    if (m) return m;
    if (Date.now() > until) throw new Error(`${what} within ${timeoutMs} ms; got:\n${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the quickstart commands run as written: a confirmed booking, the console and inspector, a verified webhook', async (t) => {
  t.timeout(300_000);
  const blocks = quickstartBlocks();
  t.deepEqual(
    blocks.map((b) => b.kind),
    ['run', 'run', 'run', 'run', 'run', 'restart', 'run', 'receiver', 'run'],
    'the quickstart blocks and their order',
  );

  // The restart line names the setting that lets the service send to a loopback receiver; the service runs with it
  // from the start here (the doc's stop, key command and restart need no restart when the key command is given
  // DATABASE_URL, which the running service's database is).
  const restart = blocks.find((b) => b.kind === 'restart')!.text.trim();
  const restartMatch = /^((?:[A-Z_]+=\S+ )+)npm start$/.exec(restart);
  t.truthy(restartMatch, `restart block: ${restart}`);
  const restartEnv = Object.fromEntries(
    restartMatch![1]!
      .trim()
      .split(' ')
      .map((a) => a.split('=') as [string, string]),
  );

  const database = await createTestDatabase();
  const dataDir = join(process.env.TEST_DATA_DIR ?? '/tmp', `quickstart-${randomBytes(4).toString('hex')}`);
  mkdirSync(dataDir, { recursive: true });
  const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
  let service: ServiceProcess | undefined;
  let shell: ReturnType<typeof startShell> | undefined;
  let receiver: ChildProcess | undefined;
  try {
    // The command of `npm start` on real stores: this file's database and a private redis-server under dataDir.
    service = await startServiceProcess({ databaseUrl: database.url, platformKey, dataDir, env: restartEnv });
    const banner = /console: +(http:\/\/\S+)/.exec(service.output())?.[1];
    t.is(banner, `${service.url}/console`, 'the banner prints the console URL');
    t.regex(service.output(), /inspector: \/console\/inspector/);
    t.is((await fetch(banner!)).status, 200);

    const receiverPort = await findFreePort();
    const values: Record<string, string> = {
      KEY: platformKey,
      BASE: service.url,
      HOOK_URL: `http://127.0.0.1:${receiverPort}/webhooks`,
      PORT: String(receiverPort),
    };
    const used = new Set<string>();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url };
    for (const k of ['REDIS_URL', 'TEST_REDIS_URL', 'PORT', 'GRPC_PORT', 'LOG_LEVEL']) delete env[k];
    shell = startShell(env);

    const runs = blocks.filter((b) => b.kind === 'run');
    const outputs: string[] = [];
    // Set-up, graph, resolve-hold-confirm, console links, live key, webhook set-up.
    for (const block of runs.slice(0, 6)) outputs.push(await shell.run(substitute(block.text, values, used)));
    const state = (await shell.run('echo "$ORG $BOOKING $LIVE_KEY"')).trim().split(' ');
    const [org, booking, liveKey] = state as [string, string, string];
    t.regex(org, /^org_/);
    t.regex(booking, /^bkg_/);
    t.regex(liveKey, /^service_live_/);

    // Step 3 ends with the booking's status as read back.
    t.is(outputs[2]!.trim().split('\n').at(-1), 'confirmed');
    const asPlatform = { authorization: `Bearer ${platformKey}`, 'service-organization-id': org };
    const read = await fetch(`${service.url}/api/v2/bookings/${booking}`, { headers: asPlatform });
    t.like(await read.json(), { id: booking, status: 'confirmed', organizationId: org });

    // Step 4 prints the console's booking page and the inspector's actor page.
    const links = outputs[3]!.trim().split('\n');
    t.deepEqual(links, [
      `${service.url}/console/bookings/${booking}`,
      `${service.url}/console/inspector/booking/${booking}`,
    ]);
    for (const link of links) {
      const page = await fetch(link);
      t.is(page.status, 200, link);
      t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
      await page.arrayBuffer();
    }
    // What those pages read: the booking and its actor.
    const actor = await fetch(`${service.url}/api/v2/inspector/actors/booking/${booking}`, { headers: asPlatform });
    t.is(actor.status, 200);
    t.like(await actor.json(), { kind: 'booking', id: booking, state: 'confirmed' });

    // The webhook set-up printed the signing secret; the receiver runs with it as the doc says, in its own process.
    const secret = outputs[5]!.trim().split('\n').at(-1)!;
    t.regex(secret, /^whsec_/);
    values.WEBHOOK_SECRET = secret;
    const receiverCommand = substitute(blocks.find((b) => b.kind === 'receiver')!.text, values, used);
    receiver = spawn('bash', ['-c', receiverCommand], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let received = '';
    receiver.stdout!.on('data', (d: Buffer) => (received += d.toString()));
    receiver.stderr!.on('data', (d: Buffer) => (received += d.toString()));
    await waitForText(() => received, /listening on http:\/\/127\.0\.0\.1:\d+\//, 'the receiver listening', 60_000);

    // A delivery signed with another secret is refused and never printed as verified.
    const forged = await fetch(`http://127.0.0.1:${receiverPort}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': `v1,${randomBytes(32).toString('base64')}`,
      },
      body: JSON.stringify({ id: 'evt_forged', type: 'booking.cancelled', data: {} }),
    });
    t.is(forged.status, 400);

    const sent = await shell.run(substitute(runs[6]!.text, values, used));
    t.regex(sent, /"delivered":true,"statusCode":204/, 'the test event was verified by the receiver');
    t.regex(sent, new RegExp(`"bookingId":"${booking}","status":"cancelled"`));
    await waitForText(() => received, /verified webhook\.test evt_\w+ \(attempt 1\)/, 'the verified test event');
    const cancelled = await waitForText(
      () => received,
      /verified booking\.cancelled (evt_\w+) \(attempt 1\): (.*)/,
      'the verified booking.cancelled delivery',
    );
    t.like(JSON.parse(cancelled[2]!), { bookingId: booking, status: 'cancelled', reason: 'quickstart' });
    t.notRegex(received, /verified \S+ evt_forged/);
    t.regex(received, /refused a delivery/);

    // The delivery is recorded as delivered with the receiver's answer (the sender records it after the answer).
    const until = Date.now() + 15_000;
    let delivery: Delivery | undefined;
    while (delivery?.status !== 'delivered' && Date.now() < until) {
      if (delivery) await new Promise((r) => setTimeout(r, 100));
      const list = await fetch(`${service.url}/api/v2/webhooks/deliveries?event=booking.cancelled`, {
        headers: { authorization: `Bearer ${liveKey}` },
      });
      delivery = ((await list.json()) as { deliveries: Delivery[] }).deliveries[0] ?? {
        eventId: '',
        status: 'none',
        statusCode: 0,
      };
    }
    t.like(delivery, { eventId: cancelled[1], status: 'delivered', statusCode: 204 });

    t.deepEqual([...used].sort(), Object.keys(values).sort(), 'every value the test gives replaces a "yours" line');
  } finally {
    await stopGroup(receiver);
    if (shell) {
      shell.child.stdin.end();
      await stopGroup(shell.child);
    }
    await service?.stop();
    await database.drop().catch(() => undefined);
  }
});
