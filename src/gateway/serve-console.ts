import type Koa from 'koa';
import { buildConsoleAssets, type ConsoleAsset } from './console-bundle.js';

/**
 * The console's Content-Security-Policy: scripts only from this origin (no inline script; `wasm-unsafe-eval` lets
 * Graphviz compile its WebAssembly, nothing else may evaluate code), no framing, no form posts or requests elsewhere.
 * The API reference page has the same policy: Swagger UI sets styles through the CSSOM, which `style-src 'self'` allows.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function page(title: string, head: string[], body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
${head.join('\n')}
</head>
<body>
${body}
</body>
</html>
`;
}

const CONSOLE_HTML = page(
  'Console · scheduling service',
  [
    '<link rel="stylesheet" href="/console/assets/console.css">',
    '<script type="module" src="/console/assets/main.js"></script>',
  ],
  '<div id="app"><p class="boot">Loading the console…</p></div>\n<noscript>The console needs JavaScript.</noscript>',
);

const REFERENCE_HTML = page(
  'API reference · scheduling service',
  [
    '<link rel="stylesheet" href="/console/assets/vendor/swagger-ui.css">',
    // Its own small stylesheet (the bar, contrast fixes), not console.css, whose element rules would restyle the viewer.
    '<link rel="stylesheet" href="/console/assets/api-reference.css">',
    '<script src="/console/assets/vendor/swagger-ui-bundle.js"></script>',
    '<script type="module" src="/console/assets/api-reference.js"></script>',
  ],
  '<nav class="reference-bar" aria-label="Console"><a href="/console">Back to the console</a></nav>\n<div id="reference"></div>',
);

function setPageHeaders(ctx: Koa.Context, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/**
 * Serves the developer console: `GET /` leads to `/console`; every `/console/...` path answers the one HTML page
 * (the page routes itself); `/console/api-reference` is the OpenAPI viewer; `/console/assets/...` the bundled
 * scripts, styles and vendor files. Static files only: the console calls the documented REST API like any client.
 */
export function serveConsole(): Koa.Middleware {
  let assets: Promise<Map<string, ConsoleAsset>> | undefined;
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/') {
      ctx.state.routeLabel = '/';
      ctx.status = 302;
      ctx.redirect('/console');
      return;
    }
    if (ctx.path !== '/console' && !ctx.path.startsWith('/console/')) return next();
    if (ctx.path.startsWith('/console/assets/')) {
      assets ??= buildConsoleAssets().catch((err) => {
        assets = undefined;
        throw err;
      });
      const file = (await assets).get(ctx.path.slice('/console/assets/'.length));
      if (!file) return next();
      // Logged and measured by its path: the files of the bundle are a fixed set.
      ctx.state.routeLabel = ctx.path;
      setPageHeaders(ctx, CONSOLE_CSP);
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('ETag', file.etag);
      if (ctx.get('if-none-match') === file.etag) {
        ctx.status = 304;
        return;
      }
      ctx.type = file.type;
      ctx.body = file.body;
      return;
    }
    const reference = ctx.path === '/console/api-reference';
    // Every other path under /console is the one page (it routes itself): one label, whatever the path.
    ctx.state.routeLabel = reference ? '/console/api-reference' : '/console';
    setPageHeaders(ctx, CONSOLE_CSP);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = reference ? REFERENCE_HTML : CONSOLE_HTML;
  };
}
