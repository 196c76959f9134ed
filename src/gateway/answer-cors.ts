import type Koa from 'koa';

/** Request headers a browser client may send (Access-Control-Allow-Headers). */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'Service-Organization-Id',
  'X-Request-Id',
  'traceparent',
  'tracestate',
];

/** Response headers a browser client may read beyond the safelisted ones (Access-Control-Expose-Headers). */
export const CORS_EXPOSED_HEADERS = [
  'Retry-After',
  'X-Request-Id',
  'X-Service-Request-Id',
  'Idempotent-Replayed',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Deprecation',
  'Link',
];

/** How long a browser may keep a preflight's answer, in seconds (Chromium keeps at most 7200). */
export const CORS_MAX_AGE_SECONDS = 7200;

/**
 * CORS for browser clients of other origins (the Fetch standard's CORS protocol), an edge concern only: a request
 * whose `Origin` is one of `origins` gets `Access-Control-Allow-Origin` echoing it on every answer (errors included)
 * and may read the exposed headers; a preflight (OPTIONS with `Access-Control-Request-Method`) from such an origin is
 * answered 204 with the methods, headers and max age. Any other origin gets no CORS header, so its browser refuses the
 * call; its preflight is answered 204 without them. No credentials mode: the key travels in `Authorization`, never in
 * a cookie. With no origins configured the middleware does nothing (an OPTIONS request is then an unknown route).
 */
export function answerCors(opts: { origins: readonly string[]; methods: readonly string[] }): Koa.Middleware {
  const allowed = new Set(opts.origins);
  const methods = opts.methods.join(', ');
  return async (ctx, next) => {
    if (allowed.size === 0) return next();
    // The answer depends on Origin: caches keep one per origin.
    ctx.vary('Origin');
    const origin = ctx.get('origin');
    const ok = origin !== '' && allowed.has(origin);
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '') {
      ctx.state.routeLabel = 'preflight';
      if (ok) {
        ctx.set('Access-Control-Allow-Origin', origin);
        ctx.set('Access-Control-Allow-Methods', methods);
        ctx.set('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS.join(', '));
        ctx.set('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
      }
      ctx.status = 204;
      return;
    }
    if (ok) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(', '));
    }
    await next();
  };
}
