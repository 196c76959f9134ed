import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createStreamLeases, type StreamLease } from '../../src/persistence/stream-leases.js';
import { startTestRedis, type TestRedis } from '../helpers/private-redis.js';

let redis: TestRedis;
test.before(async () => {
  redis = await startTestRedis();
});
test.after.always(async () => {
  await redis?.stop();
});

const uid = (p: string) => `${p}_${randomBytes(5).toString('hex')}`;
const limits = { perKey: 2, perOrganization: 3 };

/** Leases of `keyId` in `organizationId`, members numbered from `from`. */
const leasesOf = (keyId: string, organizationId: string, count: number, from = 0): StreamLease[] =>
  Array.from({ length: count }, (_, i) => ({ keyId, organizationId, member: `p:${from + i}` }));

test('a key and an organization hold at most their limit of leases; a release frees a place at once', async (t) => {
  const leases = createStreamLeases({ redis: redis.client });
  const org = uid('org');
  const [a1, a2, a3] = leasesOf(uid('key'), org, 3);
  t.is(await leases.acquire(a1!, limits), undefined);
  t.is(await leases.acquire(a2!, limits), undefined);
  t.is(await leases.acquire(a3!, limits), 'key');
  const [b1, b2] = leasesOf(uid('key'), org, 2, 10);
  t.is(await leases.acquire(b1!, limits), undefined);
  t.is(await leases.acquire(b2!, limits), 'organization', 'the organization holds 3 over its keys');
  await leases.release(a1!);
  t.is(await leases.acquire(b2!, limits), undefined);
  t.is(await leases.acquire(a3!, limits), 'organization');
});

test("leases every process shares: another client counts the same sets, and a crashed holder's leases lapse", async (t) => {
  const leaseMs = 400;
  const crashed = createStreamLeases({ redis: redis.client, leaseMs });
  const survivor = createStreamLeases({ redis: await redis.connect(), leaseMs });
  const org = uid('org');
  const key = uid('key');
  const [c1, c2] = leasesOf(key, org, 2);
  const [s1, s2] = leasesOf(key, org, 2, 10);
  t.is(await crashed.acquire(c1!, limits), undefined);
  t.is(await survivor.acquire(s1!, limits), undefined);
  // Renewed, the survivor's lease outlives its first term; the crashed process's is never renewed again.
  const renewals = setInterval(() => void survivor.renew([s1!]), leaseMs / 4);
  try {
    t.is(await survivor.acquire(s2!, limits), 'key', 'the other process holds a place of the key');
    const started = Date.now();
    let refused = await survivor.acquire(s2!, limits);
    while (refused !== undefined && Date.now() - started < 5000) {
      await new Promise((r) => setTimeout(r, 25));
      refused = await survivor.acquire(s2!, limits);
    }
    t.is(refused, undefined, 'the crashed holder lease lapsed');
    t.true(Date.now() - started >= leaseMs / 2, 'not before its lease ended');
    t.is(await crashed.acquire(c2!, limits), 'key', 'the renewed lease still counts');
  } finally {
    clearInterval(renewals);
  }
  // The sets expire with their last lease: nothing is left once every holder is gone.
  await new Promise((r) => setTimeout(r, leaseMs + 200));
  t.deepEqual(await redis.client.keys(`{streams}:*:${key}`), []);
  t.deepEqual(await redis.client.keys(`{streams}:*:${org}`), []);
});
