import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config/load-config.js';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../../src/gateway/answer-cors.js';
import { newOrganization } from '../helpers/graph-fixtures.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

/**
 * A small page of another origin: `callApi` fetches the API with a key and answers what the page could read (status,
 * body, exposed headers), or the error the browser gave when CORS refused the answer.
 */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CORS client</title></head>
<body><p>A browser client of the scheduling API on another origin.</p>
<script>
window.callApi = async (url, init) => {
  try {
    const r = await fetch(url, init);
    return {
      status: r.status,
      body: await r.json(),
      requestId: r.headers.get('x-service-request-id'),
      correlationId: r.headers.get('x-request-id'),
      rateLimitRemaining: r.headers.get('ratelimit-remaining'),
    };
  } catch (err) {
    return { failed: String(err) };
  }
};
</script></body></html>`;

/** Serves PAGE on a loopback port of its own: an origin other than the API's. */
async function pageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let svc: TestService;
let allowed: { origin: string; server: Server };
let other: { origin: string; server: Server };
let browser: Browser | undefined;
test.before(async () => {
  allowed = await pageServer();
  other = await pageServer();
  svc = await startTestService({ env: { CORS_ORIGINS: `https://app.example.com, ${allowed.origin}` } });
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
  for (const s of [allowed, other]) s?.server.close();
});

/** Sends a preflight as a browser would before a POST with a key, an idempotency key and JSON. */
function preflight(origin: string, path = '/api/v2/resolutions') {
  return fetch(`${svc.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers':
        'authorization,content-type,idempotency-key,service-organization-id,traceparent',
    },
  });
}

const list = (v: string | null) => (v ?? '').split(',').map((s) => s.trim().toLowerCase());

test('CORS_ORIGINS: comma-separated origins, none by default; a path, a wildcard or null fails start-up', (t) => {
  t.deepEqual(loadConfig({}).corsOrigins, []);
  t.deepEqual(loadConfig({ CORS_ORIGINS: ' https://app.example.com,http://localhost:3000 ,' }).corsOrigins, [
    'https://app.example.com',
    'http://localhost:3000',
  ]);
  for (const bad of ['*', 'null', 'https://app.example.com/', 'https://app.example.com/app', 'ftp://x.example', 'x'])
    t.throws(() => loadConfig({ CORS_ORIGINS: bad }), { message: /CORS_ORIGINS/ }, bad);
});

test('a preflight from an allowed origin is answered 204 with the origin, methods, headers and max age', async (t) => {
  const r = await preflight(allowed.origin);
  t.is(r.status, 204);
  t.is(await r.text(), '');
  t.is(r.headers.get('access-control-allow-origin'), allowed.origin);
  t.true(list(r.headers.get('vary')).includes('origin'));
  for (const m of ['get', 'post', 'put', 'patch', 'delete'])
    t.true(list(r.headers.get('access-control-allow-methods')).includes(m), m);
  for (const h of ['authorization', 'idempotency-key', 'service-organization-id', 'content-type', 'traceparent'])
    t.true(list(r.headers.get('access-control-allow-headers')).includes(h), h);
  t.is(r.headers.get('access-control-max-age'), '7200');
  t.is(r.headers.get('access-control-allow-credentials'), null, 'keys travel in Authorization, never cookies');
  // Any path: the preflight is answered at the edge, before routes, keys and limits.
  t.is((await preflight(allowed.origin, '/api/v2/bookings/bkg_x/cancel')).status, 204);
});

test('a preflight from another origin gets no CORS header', async (t) => {
  for (const origin of [other.origin, 'https://evil.example', 'null']) {
    const r = await preflight(origin);
    t.is(r.status, 204);
    t.true(list(r.headers.get('vary')).includes('origin'));
    for (const [name] of r.headers) t.false(name.startsWith('access-control-'), `${origin}: ${name}`);
  }
});

test('answers to an allowed origin carry the origin and the exposed headers, errors included; others carry none', async (t) => {
  const ok = await fetch(`${svc.url}/api/v2/organizations`, {
    headers: { origin: allowed.origin, authorization: `Bearer ${svc.platformKey}` },
  });
  t.is(ok.status, 200);
  t.is(ok.headers.get('access-control-allow-origin'), allowed.origin);
  const exposed = list(ok.headers.get('access-control-expose-headers'));
  for (const h of ['retry-after', 'x-request-id', 'x-service-request-id', 'ratelimit-remaining'])
    t.true(exposed.includes(h), h);
  t.deepEqual(
    exposed,
    CORS_EXPOSED_HEADERS.map((h) => h.toLowerCase()),
  );
  const refused = await fetch(`${svc.url}/api/v2/organizations`, { headers: { origin: allowed.origin } });
  t.is(refused.status, 401);
  t.is(refused.headers.get('access-control-allow-origin'), allowed.origin);
  const foreign = await fetch(`${svc.url}/api/v2/organizations`, {
    headers: { origin: other.origin, authorization: `Bearer ${svc.platformKey}` },
  });
  t.is(foreign.status, 200, 'CORS is the browser’s rule: the server answers, without the header');
  t.is(foreign.headers.get('access-control-allow-origin'), null);
  t.is(foreign.headers.get('access-control-expose-headers'), null);
  t.true(list(foreign.headers.get('vary')).includes('origin'));
  t.true(CORS_ALLOWED_HEADERS.includes('Authorization'));
});

test('Chromium: a page of an allowed origin calls the API with a key; a page of another origin is refused', async (t) => {
  browser = await launchBrowser();
  const o = await newOrganization(svc, 'cors-browser');
  const call = async (origin: string, path: string, init: Record<string, unknown>) => {
    const page = await browser!.newPage();
    try {
      await page.goto(`${origin}/`);
      return (await page.evaluate(
        ([url, i]) =>
          (globalThis as unknown as { callApi: (u: string, i: unknown) => Promise<unknown> }).callApi(url, i),
        [`${svc.url}${path}`, init] as const,
      )) as Record<string, any>;
    } finally {
      await page.close();
    }
  };
  // A preflighted POST: JSON, the key, the organization header and a trace context.
  const created = await call(allowed.origin, '/api/v2/providers', {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${svc.platformKey}`,
      'Service-Organization-Id': o.org.id,
      'Content-Type': 'application/json',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      'X-Request-Id': 'cors-page-1',
    },
    body: JSON.stringify({ externalId: 'cors-1', displayName: 'Dr. Cors' }),
  });
  t.is(created.status, 200, JSON.stringify(created));
  t.is(created.body.externalId, 'cors-1');
  t.regex(created.requestId, /^req_/, 'an exposed header is readable');
  t.is(created.correlationId, 'cors-page-1');
  t.truthy(created.rateLimitRemaining);
  const listed = await call(allowed.origin, `/api/v2/providers?limit=10`, {
    headers: { Authorization: `Bearer ${o.key}` },
  });
  t.is(listed.status, 200);
  t.true(listed.body.data.some((p: { externalId: string }) => p.externalId === 'cors-1'));
  // An error answer is readable too: the page can tell the user why.
  const missing = await call(allowed.origin, '/api/v2/providers/prv_none', {
    headers: { Authorization: `Bearer ${o.key}` },
  });
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'PROVIDER_NOT_FOUND');

  const refused = await call(other.origin, '/api/v2/providers?limit=10', {
    headers: { Authorization: `Bearer ${o.key}` },
  });
  t.regex(String(refused.failed), /TypeError: Failed to fetch/);
  const refusedPost = await call(other.origin, '/api/v2/providers', {
    method: 'POST',
    headers: { Authorization: `Bearer ${svc.platformKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ externalId: 'cors-2', displayName: 'Dr. Refused' }),
  });
  t.regex(String(refusedPost.failed), /Failed to fetch/);
  // The refused preflight kept the POST from being sent at all.
  const after = (await fetch(`${svc.url}/api/v2/providers?limit=500`, {
    headers: { authorization: `Bearer ${o.key}` },
  }).then((r) => r.json())) as { data: { externalId: string }[] };
  t.false(after.data.some((p) => p.externalId === 'cors-2'));
});
