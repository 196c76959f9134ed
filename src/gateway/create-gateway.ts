import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import { Metadata } from '@grpc/grpc-js';
import { ServiceError } from '../errors/service-error.js';
import type { RouteSpec } from '../contract/route.js';
import { callRpc, RpcFailure } from './call-rpc.js';
import { v1ErrorBody, v2ErrorBody } from './error-envelope.js';
import type { GrpcClients } from './grpc-clients.js';
import { readJsonBody } from './read-json-body.js';

/** Dependencies of the REST gateway. */
export interface GatewayDeps {
  routes: RouteSpec[];
  clients: GrpcClients;
  /** Answers whether the internal API reports Redis and PostgreSQL reachable. */
  ready(): Promise<boolean>;
  openapi(): unknown;
  capabilities(): unknown;
  log: (msg: string, extra?: Record<string, unknown>) => void;
  rpcDeadlineMs?: number;
}

const PASSED_HEADERS = ['authorization', 'service-organization-id', 'idempotency-key', 'accept'];

/** Takes the first value of each query parameter. */
function flatQuery(q: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) {
    const s = Array.isArray(v) ? v[0] : v;
    if (s !== undefined) out[k] = s;
  }
  return out;
}

/**
 * Builds the Koa gateway: it translates the REST contract onto the gRPC API and renders errors in the
 * contract's envelopes. It holds no business logic: auth, validation and rules live behind the RPCs.
 */
export function createGateway(deps: GatewayDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  const router = new Router();

  // Request id, v1 headers and the error envelope apply to every response, errors included.
  app.use(async (ctx, next) => {
    const requestId = `req_${randomUUID().replace(/-/g, '')}`;
    ctx.state.requestId = requestId;
    ctx.set('X-Service-Request-Id', requestId);
    const isV1 = ctx.path.startsWith('/api/v1/');
    if (isV1) {
      ctx.set('Deprecation', 'false');
      ctx.set('Link', `<${ctx.protocol}://${ctx.host}/api/v2>; rel="successor-version"`);
    }
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ServiceError('ROUTE_NOT_FOUND', `No route for ${ctx.method} ${ctx.path}.`);
    } catch (err) {
      const headers = err instanceof RpcFailure ? err.headers : {};
      const se = err instanceof RpcFailure ? err.error : err instanceof ServiceError ? err : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
      if (se.code === 'INTERNAL_ERROR') deps.log('gateway internal error', { requestId, error: String((err as Error)?.stack ?? err) });
      for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
      if (se.retryAfter !== undefined) ctx.set('Retry-After', String(se.retryAfter));
      ctx.status = se.status;
      ctx.body = isV1 ? v1ErrorBody(se) : v2ErrorBody(se, requestId);
    }
  });

  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/healthz') { ctx.body = { status: 'ok' }; return; }
    if (ctx.method === 'GET' && ctx.path === '/readyz') {
      const ok = await deps.ready().catch(() => false);
      if (!ok) { ctx.set('Retry-After', '1'); throw new ServiceError('SERVICE_UNAVAILABLE', 'Redis or PostgreSQL is not reachable.', { retryAfter: 1 }); }
      ctx.body = { status: 'ready' };
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/openapi.json') { ctx.body = deps.openapi(); return; }
    if (ctx.method === 'GET' && ctx.path === '/capabilities.json') { ctx.body = deps.capabilities(); return; }
    await next();
  });

  for (const route of deps.routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](route.path, async (ctx) => {
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : await readJsonBody(ctx.req);
      const md = new Metadata();
      md.set('x-service-request-id', ctx.state.requestId as string);
      for (const h of PASSED_HEADERS) {
        const v = ctx.get(h);
        if (v) md.set(h, v);
      }
      const abort = new AbortController();
      const onClose = () => { if (!ctx.res.writableEnded) abort.abort(); };
      ctx.req.once('close', onClose);
      try {
        const out = await callRpc(deps.clients[route.service], route.rpc, { params: { ...ctx.params }, query: flatQuery(ctx.query), body: body ?? null }, md, { deadlineMs: deps.rpcDeadlineMs ?? 30_000, signal: abort.signal });
        for (const [k, v] of Object.entries(out.headers)) ctx.set(k, v);
        ctx.status = route.successStatus ?? 200;
        ctx.body = out.headers['content-type']?.startsWith('text/html') ? String(out.result) : out.result;
      } finally {
        ctx.req.off('close', onClose);
      }
    });
  }
  app.use(router.routes());
  return app;
}
