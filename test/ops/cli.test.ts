import test from 'ava';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertPlatform } from '../../src/persistence/api-key-repository.js';
import { client } from '../helpers/http.js';
import { npmScriptCommand } from '../helpers/npm-script-command.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a CLI entry point as a child process, the way `npm run` would. */
function runCli(
  script: 'keys' | 'audit:verify',
  args: string[],
  env: Record<string, string | undefined> = { DATABASE_URL: svc.stores.databaseUrl },
): Promise<CliRun> {
  const childEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
  const [command, ...scriptArgs] = npmScriptCommand(script);
  return new Promise((resolve) => {
    execFile(command!, [...scriptArgs, ...args], { env: childEnv, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const platform = () => client(svc.url, svc.platformKey);
const keyOf = (out: string) => /^key: (service_(?:test|live)_\S+)$/m.exec(out)?.[1];
const idOf = (out: string) => /key (key_\w+)/.exec(out)?.[1];

test.serial('keys create makes a platform key that authenticates, shown once, with a system audit event', async (t) => {
  const run = await runCli('keys', ['create', '--type', 'platform_test', '--name', 'ops-cli']);
  t.is(run.code, 0, run.stderr);
  const key = keyOf(run.stdout);
  const id = idOf(run.stdout);
  t.truthy(key, run.stdout);
  t.truthy(id);
  const orgs = await client(svc.url, key).get('/api/v2/organizations');
  t.is(orgs.status, 200);
  const listed = (await platform().get('/api/v2/api-keys?limit=500')).body.data.find((k: any) => k.id === id);
  t.like(listed, { type: 'platform_test', name: 'ops-cli', revokedAt: null });
  const events = await platform().get(`/api/v2/audit-events?resource_id=${id}`);
  t.is(events.body.data.length, 1);
  t.like(events.body.data[0], {
    action: 'api_key.create',
    resource_type: 'api_key',
    actor: { type: 'system' },
    request_id: null,
  });
  t.is(events.body.data[0].after.key, undefined);

  const list = await runCli('keys', ['list']);
  t.is(list.code, 0, list.stderr);
  t.true(list.stdout.includes(id!));
  t.false(list.stdout.includes(key!), 'list never prints a secret');
});

test.serial('keys create makes an organization key scoped to its organization', async (t) => {
  const org = (await platform().post('/api/v2/organizations', { externalId: 'cli-org', name: 'CLI Org' })).body;
  const run = await runCli('keys', [
    'create',
    '--type',
    'organization_live',
    '--organization',
    org.id,
    '--name',
    'front desk',
    '--expires-at',
    '2099-01-01T00:00:00Z',
  ]);
  t.is(run.code, 0, run.stderr);
  const key = keyOf(run.stdout)!;
  t.regex(key, /^service_live_[A-Za-z0-9_-]{32,}$/);
  const orgs = await client(svc.url, key).get('/api/v2/organizations');
  t.deepEqual(
    orgs.body.data.map((o: any) => o.id),
    [org.id],
  );
  const events = await client(svc.url, key).get('/api/v2/audit-events?action=api_key.create');
  t.deepEqual(
    events.body.data.map((e: any) => e.actor),
    [{ type: 'system' }],
  );
});

test.serial('keys revoke revokes a key and records it', async (t) => {
  const created = await runCli('keys', ['create', '--type', 'platform_test', '--name', 'to revoke']);
  const key = keyOf(created.stdout)!;
  const id = idOf(created.stdout)!;
  t.is((await client(svc.url, key).get('/api/v2/organizations')).status, 200);
  const revoked = await runCli('keys', ['revoke', id]);
  t.is(revoked.code, 0, revoked.stderr);
  t.regex(revoked.stdout, /revoked key/);
  // The service trusts a key lookup for 500 ms (docs/operations.md, credential cache), and the CLI revokes in the
  // database behind its back: refused once that lookup lapses, never later than a few seconds even on a loaded machine.
  const revokedAt = Date.now();
  let after = await client(svc.url, key).get('/api/v2/organizations');
  while (after.status === 200 && Date.now() - revokedAt < 5000) {
    await new Promise((r) => setTimeout(r, 100));
    after = await client(svc.url, key).get('/api/v2/organizations');
  }
  t.is(after.status, 401);
  t.is(after.body.error.code, 'UNAUTHENTICATED');
  const again = await runCli('keys', ['revoke', id]);
  t.is(again.code, 0);
  t.regex(again.stdout, /already revoked/);
  const events = await platform().get(`/api/v2/audit-events?resource_id=${id}&action=api_key.revoke`);
  t.is(events.body.data.length, 1);
  t.like(events.body.data[0], { actor: { type: 'system' }, before: { revokedAt: null } });
  t.truthy(events.body.data[0].after.revokedAt);
});

test.serial('keys rejects bad command lines with exit code 2', async (t) => {
  const cases: { args: string[]; message: RegExp }[] = [
    { args: [], message: /usage/ },
    { args: ['rotate'], message: /usage/ },
    { args: ['create'], message: /--type must be one of/ },
    { args: ['create', '--type', 'superuser'], message: /--type must be one of/ },
    { args: ['create', '--type', 'organization_test'], message: /--organization <id> is required/ },
    {
      args: ['create', '--type', 'organization_test', '--organization', 'org_missing'],
      message: /no organization org_missing/,
    },
    { args: ['create', '--type', 'platform_test', '--expires-at', '2001-01-01T00:00:00Z'], message: /in the future/ },
    { args: ['create', '--type', 'platform_test', '--expires-at', 'tomorrow'], message: /ISO 8601/ },
    { args: ['revoke'], message: /needs a key id/ },
    { args: ['revoke', 'key_missing'], message: /no key key_missing/ },
  ];
  for (const c of cases) {
    const run = await runCli('keys', c.args);
    t.is(run.code, 2, c.args.join(' '));
    t.regex(run.stderr, c.message, c.args.join(' '));
  }
});

test.serial('audit:verify passes after a burst of writes and reads and reports a tampered event', async (t) => {
  const db = svc.service.deps.db;
  // A burst: concurrent writes and header reads of one organization, nothing flushed before the command runs.
  const org = (await platform().post('/api/v2/organizations', { externalId: 'cli-audit-burst', name: 'Burst' })).body;
  const viaHeader = client(svc.url, svc.platformKey, { 'service-organization-id': org.id });
  const burst = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      i % 2
        ? viaHeader.get(`/api/v2/organizations/${org.id}`)
        : viaHeader.post('/api/v2/ranking-policies', { name: `Burst ${i}` }),
    ),
  );
  t.true(burst.every((r) => r.status === 200));
  await svc.service.audit.flush();
  const ok = await runCli('audit:verify', []);
  t.is(ok.code, 0, ok.stdout + ok.stderr);
  const count = (await db.query('SELECT count(*)::int AS n FROM audit_events')).rows[0].n as number;
  t.true(count > 60);
  t.is(ok.stdout.trim(), `audit chain OK: ${count} events, ${count} linked, 0 not linked yet`);

  const target = (
    await db.query(
      'SELECT e.id, e.action FROM audit_events e JOIN audit_chain c ON c.event_id = e.id ORDER BY e.seq LIMIT 1',
    )
  ).rows[0];
  const edit = async (action: string) => {
    const tx = await db.pool.connect();
    try {
      await tx.query('BEGIN');
      await tx.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update');
      await tx.query('UPDATE audit_events SET action = $2 WHERE id = $1', [target.id, action]);
      await tx.query('ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update');
      await tx.query('COMMIT');
    } finally {
      tx.release();
    }
  };
  await edit('tampered.action');
  try {
    const broken = await runCli('audit:verify', []);
    t.is(broken.code, 1);
    t.regex(broken.stdout, /audit chain BROKEN: 1 break/);
    t.true(broken.stdout.includes(`${target.id}: hash does not match the content`), broken.stdout);
  } finally {
    await edit(target.action);
  }
  t.is((await runCli('audit:verify', [])).code, 0);
});

test.serial('audit:verify links what the sequencer has not reached yet, and then finds nothing pending', async (t) => {
  const db = svc.service.deps.db;
  const org = (await platform().post('/api/v2/organizations', { externalId: 'cli-audit-unlinked', name: 'Unlinked' }))
    .body;
  const run = await runCli('audit:verify', []);
  t.is(run.code, 0, run.stdout + run.stderr);
  t.regex(run.stdout, /, 0 not linked yet$/m);
  const linked = await db.query(
    'SELECT count(*)::int AS n FROM audit_events e JOIN audit_chain c ON c.event_id = e.id WHERE e.organization_id = $1',
    [org.id],
  );
  t.is(linked.rows[0].n, 1);
});

test.serial('keys create with several platforms needs --platform', async (t) => {
  const other = await svc.service.deps.db.transaction((tx) => insertPlatform(tx, { name: 'Second', now: new Date() }));
  const ambiguous = await runCli('keys', ['create', '--type', 'platform_test']);
  t.is(ambiguous.code, 2);
  t.regex(ambiguous.stderr, /several platforms exist .*--platform/);
  const chosen = await runCli('keys', ['create', '--type', 'platform_test', '--platform', other.platformId]);
  t.is(chosen.code, 0, chosen.stderr);
  t.regex(chosen.stdout, new RegExp(`platform ${other.platformId}, organization ${other.organizationId}`));
  // The key acts in the second platform: it sees its default organization only.
  const orgs = await client(svc.url, keyOf(chosen.stdout)).get('/api/v2/organizations');
  t.deepEqual(
    orgs.body.data.map((o: any) => o.id),
    [other.organizationId],
  );
});

test('without DATABASE_URL the CLIs use the embedded PostgreSQL of DATA_DIR, and refuse one in use', async (t) => {
  const dataDir = join(process.env.TEST_DATA_DIR ?? tmpdir(), `cli-embedded-${randomBytes(4).toString('hex')}`);
  try {
    const created = await runCli('keys', ['create', '--type', 'platform_live'], { DATA_DIR: dataDir });
    t.is(created.code, 0, created.stderr);
    t.regex(keyOf(created.stdout) ?? '', /^service_live_/);
    const verified = await runCli('audit:verify', [], { DATA_DIR: dataDir });
    t.is(verified.stdout.trim(), 'audit chain OK: 1 events, 1 linked, 0 not linked yet');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  // A live postmaster in the data dir (here a stand-in process) is left alone.
  const busyDir = join(process.env.TEST_DATA_DIR ?? tmpdir(), `cli-busy-${randomBytes(4).toString('hex')}`);
  const standIn = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    mkdirSync(join(busyDir, 'postgres', 'data'), { recursive: true });
    writeFileSync(join(busyDir, 'postgres', 'data', 'postmaster.pid'), `${standIn.pid}\n${busyDir}\n0\n54321\n`);
    const refused = await runCli('keys', ['list'], { DATA_DIR: busyDir });
    t.is(refused.code, 1);
    t.regex(
      refused.stderr,
      /is in use \(pid \d+.*DATABASE_URL=postgres:\/\/postgres:.*@127\.0\.0\.1:54321\/scheduling/,
    );
    t.is(refused.stderr.trim().split('\n').length, 1, 'one line');
    t.is(standIn.exitCode, null, 'the running server was not stopped');
    t.notThrows(() => process.kill(standIn.pid!, 0));
  } finally {
    standIn.kill('SIGKILL');
    rmSync(busyDir, { recursive: true, force: true });
  }
});
