import test from 'ava';
import { client } from '../helpers/http.js';
import { startTestService, startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';

// Two service processes' worth of services (in this test process) on one PostgreSQL and one Redis.
let stores: TestStores;
let a: TestService;
let b: TestService;
test.before(async () => {
  stores = await startTestStores();
  a = await startTestService({ stores });
  b = await startTestService({ stores, platformKey: a.platformKey });
});
test.after.always(async () => {
  await b?.stop();
  await a?.stop();
  await stores?.stop();
});

/** Counts the statements a service sends that read the organizations table, while `fn` runs. */
async function organizationReads(svc: TestService, fn: () => Promise<void>): Promise<number> {
  const db = svc.service.deps.db;
  const original = db.query;
  let n = 0;
  db.query = ((...args: Parameters<typeof original>) => {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
    if (text && /FROM organizations WHERE id/.test(text)) n++;
    return (original as (...a: unknown[]) => unknown)(...args);
  }) as typeof original;
  try {
    await fn();
  } finally {
    db.query = original;
  }
  return n;
}

/** Polls (bounded, 5 s) until `read` answers `want`. */
async function until<T>(read: () => Promise<T>, want: T): Promise<T> {
  const deadline = Date.now() + 5000;
  let last = await read();
  while (last !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    last = await read();
  }
  return last;
}

test.serial(
  'repeated reads of an organization are answered from memory: no PostgreSQL query after the first',
  async (t) => {
    const api = client(a.url, a.platformKey);
    const org = (await api.post('/api/v2/organizations', { externalId: 'cached', name: 'Cached' })).body;
    t.is((await api.get(`/api/v2/organizations/${org.id}`)).status, 200);
    const reads = await organizationReads(a, async () => {
      for (let i = 0; i < 20; i++) t.is((await api.get(`/api/v2/organizations/${org.id}`)).body.name, 'Cached');
    });
    t.is(reads, 0);
  },
);

test.serial(
  'a change committed by one process is seen at once by it and within moments by the other, graph version included',
  async (t) => {
    const live = await livePlatformKey(a);
    const onA = client(a.url, live);
    const onB = client(b.url, live);
    const org = (await onA.post('/api/v2/organizations', { externalId: 'changing', name: 'Before' })).body;
    // Both processes have the organization cached.
    t.is((await onA.get(`/api/v2/organizations/${org.id}`)).body.name, 'Before');
    t.is((await onB.get(`/api/v2/organizations/${org.id}`)).body.name, 'Before');

    t.is((await onA.patch(`/api/v2/organizations/${org.id}`, { name: 'After' })).status, 200);
    t.is((await onA.get(`/api/v2/organizations/${org.id}`)).body.name, 'After', 'the writer reads its own write');
    t.is(
      await until(async () => (await onB.get(`/api/v2/organizations/${org.id}`)).body.name as string, 'After'),
      'After',
    );

    // A provider written through B moves the graph version: A sees it without waiting for any time bound.
    const inOrg = client(b.url, live, { 'service-organization-id': org.id });
    const version = (await onA.get(`/api/v2/organizations/${org.id}`)).body.providerGraphVersion as number;
    const started = Date.now();
    t.is((await inOrg.post('/api/v2/providers', { externalId: 'p1', displayName: 'P One' })).status, 200);
    t.is((await onB.get(`/api/v2/organizations/${org.id}`)).body.providerGraphVersion, version + 1);
    t.is(
      await until(
        async () => (await onA.get(`/api/v2/organizations/${org.id}`)).body.providerGraphVersion as number,
        version + 1,
      ),
      version + 1,
    );
    t.true(Date.now() - started < 4000, 'heard by announcement, well before the 5 s bound');
  },
);
