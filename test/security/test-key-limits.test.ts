import test from 'ava';
import { client } from '../helpers/http.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// Issue 21 item 6: a test key changed live configuration (it re-pointed the webhook and rotated its secret). Test keys
// may read the webhook configuration but not change it, and may create only test keys (CONTRACT part 2).

let svc: TestService;
let live: string;
test.before(async () => {
  svc = await startTestService({ env: { WEBHOOK_ALLOW_INSECURE_URLS: '1' } });
  live = await livePlatformKey(svc);
});
test.after.always(async () => {
  await svc?.stop();
});

/** A fresh organization with clients acting in it through the platform's live and test keys. */
async function newOrg(name: string) {
  const org = (await client(svc.url, live).post('/api/v2/organizations', { externalId: name, name })).body;
  return {
    id: org.id as string,
    live: client(svc.url, live, { 'service-organization-id': org.id }),
    test: client(svc.url, svc.platformKey, { 'service-organization-id': org.id }),
  };
}

test('a test key may read the webhook configuration but not set it up, re-point it or rotate its secret (403 LIVE_KEY_REQUIRED)', async (t) => {
  const org = await newOrg('test-key-webhook');
  const first = await org.test.put('/api/v2/webhooks', { url: 'http://127.0.0.1:9/first', events: ['*'] });
  t.is(first.status, 403);
  t.like(first.body.error, { code: 'LIVE_KEY_REQUIRED', status: 403 });
  t.is((await org.test.get('/api/v2/webhooks')).body.error.code, 'WEBHOOK_NOT_CONFIGURED', 'nothing was set up');

  const setUp = await org.live.put('/api/v2/webhooks', { url: 'http://127.0.0.1:9/live', events: ['*'] });
  t.is(setUp.status, 200);
  const before = (await org.test.get('/api/v2/webhooks')).body;
  t.like(before, { url: 'http://127.0.0.1:9/live', events: ['*'], active: true }, 'a test key reads it');

  const repoint = await org.test.put('/api/v2/webhooks', {
    url: 'http://127.0.0.1:9/attacker',
    events: ['booking.confirmed'],
    active: false,
    rotateSecret: true,
  });
  t.is(repoint.status, 403);
  t.like(repoint.body.error, { code: 'LIVE_KEY_REQUIRED', status: 403 });
  t.false('secret' in repoint.body, 'no secret handed out');
  t.deepEqual((await org.live.get('/api/v2/webhooks')).body, before, 'the configuration is unchanged');
  // Nor was the secret rotated: the only change recorded is the live set-up (refused calls are recorded as refusals).
  const audit: { actor: { keyType?: string }; after: { error?: unknown } | null }[] = (
    await org.live.get('/api/v2/audit-events?action=webhook.update')
  ).body.data;
  const changes = audit.filter((e) => !e.after?.error);
  t.is(changes.length, 1);
  t.is(changes[0]!.actor.keyType, 'platform_live');
});

test('a test key may create only test keys: platform_live and organization_live are 403 LIVE_KEY_REQUIRED on `type`', async (t) => {
  const org = await newOrg('test-key-keys');
  const platformTest = client(svc.url, svc.platformKey);
  const keysBefore = (await client(svc.url, live).get('/api/v2/api-keys?limit=500')).body.data.length;
  for (const type of ['platform_live', 'organization_live']) {
    const r = await platformTest.post('/api/v2/api-keys', { type, organizationId: org.id, name: `via test ${type}` });
    t.is(r.status, 403, type);
    t.like(r.body.error, { code: 'LIVE_KEY_REQUIRED', status: 403, field: 'type' }, type);
    t.false('key' in r.body, type);
  }
  t.is((await client(svc.url, live).get('/api/v2/api-keys?limit=500')).body.data.length, keysBefore, 'no key made');
  // Test keys it may still make, and a live key makes live ones.
  const testKey = await platformTest.post('/api/v2/api-keys', {
    type: 'organization_test',
    organizationId: org.id,
    name: 'test via test',
  });
  t.is(testKey.status, 200);
  t.regex(testKey.body.key, /^service_test_/);
  const liveKey = await client(svc.url, live).post('/api/v2/api-keys', {
    type: 'organization_live',
    organizationId: org.id,
    name: 'live via live',
  });
  t.is(liveKey.status, 200);
  t.regex(liveKey.body.key, /^service_live_/);
});
