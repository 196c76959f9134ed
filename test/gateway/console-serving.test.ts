import test from 'ava';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${svc.url}${path}`, { headers, redirect: 'manual' });

test('GET / leads a person to the console', async (t) => {
  const res = await get('/');
  t.is(res.status, 302);
  t.is(res.headers.get('location'), '/console');
});

test('every console path answers the one page under a strict CSP, with no inline script', async (t) => {
  for (const path of ['/console', '/console/webhooks', '/console/inspector/booking/bk_1', '/console/api-reference']) {
    const res = await get(path);
    t.is(res.status, 200, path);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    t.regex(csp, /frame-ancestors 'none'/, path);
    t.regex(csp, /script-src 'self' 'wasm-unsafe-eval'(;|$)/, path);
    t.notRegex(csp, /unsafe-inline/, path);
    t.is(res.headers.get('x-frame-options'), 'DENY');
    t.is(res.headers.get('x-content-type-options'), 'nosniff');
    t.is(res.headers.get('cache-control'), 'no-store');
    const html = await res.text();
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    t.true(scripts.length > 0, path);
    for (const tag of scripts) t.regex(tag, / src="\/console\/assets\//, `${path}: ${tag}`);
    t.notRegex(html, /<script[^>]*>[^<]+<\/script>/, `${path} has an inline script`);
    t.notRegex(html, /https?:\/\//, `${path} loads nothing from another origin`);
  }
});

test('console assets are served from this service with an ETag, and 304 when unchanged', async (t) => {
  const main = await get('/console/assets/main.js');
  t.is(main.status, 200);
  t.regex(main.headers.get('content-type') ?? '', /^text\/javascript/);
  const etag = main.headers.get('etag');
  t.truthy(etag);
  t.true((await main.text()).length > 1000);
  const again = await get('/console/assets/main.js', { 'if-none-match': etag! });
  t.is(again.status, 304);
  const css = await get('/console/assets/console.css');
  t.regex(css.headers.get('content-type') ?? '', /^text\/css/);
  const vendor = await get('/console/assets/vendor/swagger-ui-bundle.js');
  t.is(vendor.status, 200);
});

test('an unknown asset or a write to a console path is a 404 in the contract envelope', async (t) => {
  for (const [method, path] of [
    ['GET', '/console/assets/nope.js'],
    ['GET', '/console/assets/../../package.json'],
    ['POST', '/console'],
  ] as const) {
    const res = await fetch(`${svc.url}${path}`, { method, redirect: 'manual' });
    t.is(res.status, 404, `${method} ${path}`);
    const body = (await res.json()) as { error: { code: string; requestId: string } };
    t.is(body.error.code, 'ROUTE_NOT_FOUND');
    t.truthy(res.headers.get('x-service-request-id'));
  }
});
