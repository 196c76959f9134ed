import test from 'ava';
import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { ServiceError } from '../../../src/errors/service-error.js';
import { checkOutboundUrl } from '../../../src/application/outbound/check-outbound-url.js';
import type { OutboundLookup } from '../../../src/application/outbound/guarded-lookup.js';
import {
  createWebhookPoster,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_USER_AGENT,
} from '../../../src/application/webhooks/post-webhook.js';
import { newWebhookSecret, signatureHeaders } from '../../../src/application/webhooks/webhook-signature.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

let receiver: WebhookReceiver;
test.before(async () => {
  receiver = await startWebhookReceiver();
  // Tests run concurrently: each picks its answer with an x-case header.
  receiver.answer((r) =>
    r.headers['x-case'] === 'hang' ? 'hang' : { status: r.headers['x-case'] === 'redirect' ? 302 : 200 },
  );
});
test.after.always(async () => {
  await receiver?.stop();
});

/** A lookup answering from a table; unknown names fail like getaddrinfo. */
function tableLookup(table: Record<string, string[]>): OutboundLookup {
  return ((host: string, _opts: unknown, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    const found = table[host];
    if (!found) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    cb(
      null,
      found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as unknown as OutboundLookup;
}

// The address-class table and its tests are in test/security (forbidden-targets.ts, outbound-guard.test.ts).

/** The webhook URL check: the outbound check on the webhook's `url` field. */
const checkWebhookUrl = (url: string, opts: { allowInsecure: boolean; lookup?: OutboundLookup }) =>
  checkOutboundUrl(url, { field: 'url', ...opts });

/** Asserts checkWebhookUrl refuses with a VALIDATION_ERROR on url whose detail code is `code`. */
async function refused(
  t: import('ava').ExecutionContext,
  url: string,
  code: string,
  opts: { allowInsecure?: boolean; lookup?: OutboundLookup } = {},
) {
  const err = await t.throwsAsync(
    checkWebhookUrl(url, {
      allowInsecure: opts.allowInsecure ?? false,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    }),
  );
  t.true(err instanceof ServiceError, String(err));
  const e = err as ServiceError;
  t.is(e.code, 'VALIDATION_ERROR');
  t.is(e.field, 'url');
  t.is(e.details?.[0]?.field, 'url');
  t.is(e.details?.[0]?.code, code, e.message);
}

const dns = tableLookup({
  'hooks.example.com': ['93.184.216.34'],
  'dual.example.com': ['93.184.216.34', '2606:4700:4700::1111'],
  'localhost.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.216.34', '10.1.2.3'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'v6local.example.com': ['fd00::5'],
  'cgnat.example.com': ['100.64.1.1'],
});

const REFUSED: [string, string, string][] = [
  ['not a url', 'INVALID_URL', 'not absolute'],
  ['/relative/path', 'INVALID_URL', 'relative'],
  ['http://hooks.example.com/x', 'HTTPS_REQUIRED', 'plain http'],
  ['ftp://hooks.example.com/x', 'HTTPS_REQUIRED', 'another scheme'],
  ['https://user:pw@hooks.example.com/x', 'CREDENTIALS_IN_URL', 'credentials'],
  ['https://127.0.0.1/x', 'FORBIDDEN_ADDRESS', 'loopback literal'],
  ['https://[::1]/x', 'FORBIDDEN_ADDRESS', 'IPv6 loopback literal'],
  ['https://[::ffff:127.0.0.1]/x', 'FORBIDDEN_ADDRESS', 'IPv4-mapped loopback literal'],
  ['https://[::ffff:7f00:1]/x', 'FORBIDDEN_ADDRESS', 'IPv4-mapped loopback, hex form'],
  ['https://169.254.169.254/latest/meta-data', 'FORBIDDEN_ADDRESS', 'cloud metadata literal'],
  ['https://10.0.0.8/x', 'FORBIDDEN_ADDRESS', 'private literal'],
  ['https://192.168.0.8/x', 'FORBIDDEN_ADDRESS', 'private literal'],
  ['https://[fe80::1]/x', 'FORBIDDEN_ADDRESS', 'link-local literal'],
  ['https://[fc00::1]/x', 'FORBIDDEN_ADDRESS', 'unique-local literal'],
  ['https://0.0.0.0/x', 'FORBIDDEN_ADDRESS', 'unspecified literal'],
  ['https://2130706433/x', 'FORBIDDEN_ADDRESS', 'decimal loopback (URL normalizes to 127.0.0.1)'],
  ['https://localhost.example.com/x', 'FORBIDDEN_ADDRESS', 'name resolving to loopback'],
  ['https://mixed.example.com/x', 'FORBIDDEN_ADDRESS', 'one of its addresses is private'],
  ['https://metadata.example.com/x', 'FORBIDDEN_ADDRESS', 'name resolving to the metadata address'],
  ['https://mapped.example.com/x', 'FORBIDDEN_ADDRESS', 'name resolving to an IPv4-mapped loopback'],
  ['https://v6local.example.com/x', 'FORBIDDEN_ADDRESS', 'name resolving to unique-local'],
  ['https://cgnat.example.com/x', 'FORBIDDEN_ADDRESS', 'name resolving to CGNAT'],
  ['https://nowhere.example.com/x', 'UNRESOLVABLE_HOST', 'name that does not resolve'],
];
for (const [url, code, why] of REFUSED) {
  test(`checkWebhookUrl refuses ${url} (${why})`, async (t) => {
    await refused(t, url, code, { lookup: dns });
  });
}

test('checkWebhookUrl accepts public https targets, and http/loopback only with allowInsecure', async (t) => {
  await t.notThrowsAsync(
    checkWebhookUrl('https://hooks.example.com/webhooks?x=1', { allowInsecure: false, lookup: dns }),
  );
  await t.notThrowsAsync(checkWebhookUrl('https://dual.example.com:8443/w', { allowInsecure: false, lookup: dns }));
  await t.notThrowsAsync(checkWebhookUrl('https://93.184.216.34/w', { allowInsecure: false, lookup: dns }));
  await t.notThrowsAsync(checkWebhookUrl('http://127.0.0.1:9999/hook', { allowInsecure: true }));
  await t.notThrowsAsync(checkWebhookUrl('http://localhost.example.com/hook', { allowInsecure: true, lookup: dns }));
  await refused(t, 'ftp://127.0.0.1/x', 'HTTPS_REQUIRED', { allowInsecure: true });
  await refused(t, 'http://u:p@127.0.0.1/x', 'CREDENTIALS_IN_URL', { allowInsecure: true });
});

test('signature headers verify with standardwebhooks for every secret given, and the service form recomputes', (t) => {
  const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
  const rawBody = JSON.stringify({ id: 'evt_1', type: 'booking.confirmed', data: { a: 1 } });
  const timestamp = Math.floor(Date.now() / 1000);
  const h = signatureHeaders({ id: 'evt_1', timestamp, rawBody, secrets: [current, previous] });
  t.is(h['webhook-id'], 'evt_1');
  t.is(h['webhook-timestamp'], String(timestamp));
  t.is(h['X-Service-Timestamp'], String(timestamp));
  t.truthy(new Webhook(current).verify(rawBody, h));
  t.truthy(new Webhook(previous).verify(rawBody, h));
  t.throws(() => new Webhook(newWebhookSecret()).verify(rawBody, h));
  t.throws(() => new Webhook(current).verify(`${rawBody} `, h), undefined, 'a changed body fails');
  t.is(
    h['webhook-signature'],
    `${new Webhook(current).sign('evt_1', new Date(timestamp * 1000), rawBody)} ${new Webhook(previous).sign('evt_1', new Date(timestamp * 1000), rawBody)}`,
  );
  t.regex(h['X-Service-Signature']!, /^sha256=[0-9a-f]{64},sha256=[0-9a-f]{64}$/);
  const single = signatureHeaders({ id: 'evt_1', timestamp, rawBody, secrets: [current] });
  t.regex(single['X-Service-Signature']!, /^sha256=[0-9a-f]{64}$/);
  t.is(single['webhook-signature']!.split(' ').length, 1);
});

test('the guarded POST refuses a name that resolves to loopback without connecting, and IP literals before any lookup', async (t) => {
  const poster = createWebhookPoster({
    allowInsecure: false,
    lookup: tableLookup({ 'rebind.example.com': ['127.0.0.1'], 'mapped.example.com': ['::ffff:7f00:1'] }),
  });
  const before = receiver.connections();
  const byName = await poster.post(`https://rebind.example.com:${receiver.port}/hook`, '{}', {});
  t.is(byName.statusCode, null);
  t.regex(byName.error!, /refused to connect: rebind\.example\.com resolves to 127\.0\.0\.1 is a loopback address/);
  const mapped = await poster.post(`https://mapped.example.com:${receiver.port}/hook`, '{}', {});
  t.regex(mapped.error!, /refused to connect/);
  const literal = await poster.post(`https://127.0.0.1:${receiver.port}/hook`, '{}', {});
  t.regex(literal.error!, /refused to connect: 127\.0\.0\.1 is a loopback address/);
  const plain = await poster.post(`http://93.184.216.34/hook`, '{}', {});
  t.regex(plain.error!, /http: URLs are not allowed/);
  t.is(receiver.connections(), before, 'no connection was made');
  poster.close();
});

test('a redirect is not followed: it is a failed attempt and the receiver sees one request', async (t) => {
  const poster = createWebhookPoster({ allowInsecure: true });
  const r = await poster.post(receiver.url, '{"a":1}', { 'x-case': 'redirect' });
  t.is(r.statusCode, 302);
  t.regex(r.error!, /302; redirects are not followed/);
  t.is(receiver.requests.filter((q) => q.headers['x-case'] === 'redirect').length, 1);
  const ok = await poster.post(receiver.url, '{"a":1}', {});
  t.is(ok.statusCode, 200);
  t.is(ok.error, undefined);
  const got = receiver.requests.at(-1)!;
  t.is(got.headers['user-agent'], WEBHOOK_USER_AGENT);
  t.is(got.headers['content-type'], 'application/json');
  poster.close();
});

test('a receiver that never answers fails the attempt after the 10 s timeout', async (t) => {
  t.timeout(30_000);
  t.is(WEBHOOK_TIMEOUT_MS, 10_000);
  const poster = createWebhookPoster({ allowInsecure: true });
  const started = Date.now();
  const r = await poster.post(receiver.url, '{}', { 'x-case': 'hang' });
  const took = Date.now() - started;
  t.is(r.statusCode, null);
  t.regex(r.error!, /no answer within 10000 ms/);
  t.true(took >= 9_900 && took < 11_500, `took ${took} ms`);
  t.true(r.latencyMs >= 9_900);
  poster.close();
});
