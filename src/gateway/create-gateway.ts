import { performance } from 'node:perf_hooks';
import Koa from 'koa';
import Router from '@koa/router';
import { Metadata } from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { ServiceError } from '../errors/service-error.js';
import type { RouteSpec } from '../contract/route.js';
import type { ServiceLogger } from '../observability/create-logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { Tracing } from '../observability/create-tracing.js';
import { traceIdOfTraceparent } from '../observability/trace-id-of-traceparent.js';
import { markSpanFailed } from '../observability/mark-span-failed.js';
import { setHeaderMetadata } from '../grpc/header-metadata.js';
import { RpcFailure } from './call-rpc.js';
import { networkCaller } from './rpc-caller.js';
import { inProcessCaller, type InProcessApi } from './in-process-caller.js';
import { tracedCaller } from './traced-caller.js';
import { correlationIdOf } from './correlation-id.js';
import { v1ErrorBody, v2ErrorBody } from './error-envelope.js';
import type { GrpcClients } from './grpc-clients.js';
import { readJsonBody } from './read-json-body.js';
import { newRequestId } from './new-request-id.js';
import { refuseThroughApi } from './refuse-through-api.js';
import { openRpcStream } from './open-rpc-stream.js';
import { serveEventStream } from './serve-event-stream.js';
import { serveConsole } from './serve-console.js';
import { serveMetrics } from './serve-metrics.js';
import { createRequestAdmission } from './admit-requests.js';
import { createCredentialsCheck } from './create-credentials-check.js';
import { requestMessageOf } from '../contract/request-message-of.js';
import { restJsonOf } from './rest-json-of.js';
import { ADMITTED_TOKEN_KEY, type AdmissionQueueOptions } from '../admission/admission-queue.js';
import { answerCors } from './answer-cors.js';

/** Dependencies of the REST gateway. */
export interface GatewayDeps {
  routes: RouteSpec[];
  /** Clients of unary calls (createGrpcClients). */
  clients: GrpcClients;
  /**
   * Clients of event streams, on a connection of their own (createStreamClients): long-lived streams never hold the
   * concurrent-call places unary calls need.
   */
  streamClients: GrpcClients;
  /**
   * The API of this same process, when it runs here: unary calls (every REST request but event streams, the credentials
   * check, refusals) go to it in-process, through the server's own interceptors and handlers, instead of over loopback
   * HTTP/2; `clients` then serve the readiness probe only. Unset: every call goes over the network.
   */
  inProcess?: InProcessApi;
  /** Answers whether the internal API reports Redis and PostgreSQL reachable; may throw a ServiceError saying why not. */
  ready(): Promise<boolean>;
  openapi(): unknown;
  capabilities(): unknown;
  logger: ServiceLogger;
  metrics: ServiceMetrics;
  rpcDeadlineMs?: number;
  /** Work run at once and the queue beyond it (see admission-queue.ts). Unset: no limit. */
  admission?: AdmissionQueueOptions;
  /**
   * Sent as ADMITTED_TOKEN_KEY on the calls to the gRPC server of this same process, which shares it: the request was
   * admitted and counted here, so that server does not count it against its own limit again.
   */
  admittedToken?: string;
  /**
   * METRICS_TOKEN: set, GET /metrics needs `Authorization: Bearer <token>` and serves the full exposition; unset, it
   * serves anonymous callers the reduced one (no errors by code, nothing about callers' requests: serve-metrics.ts).
   */
  metricsToken?: string;
  /** Origins whose browser pages may call the gateway (CORS_ORIGINS; answer-cors.ts). Unset or empty: no CORS. */
  corsOrigins?: readonly string[];
  /**
   * OpenTelemetry tracing, when on (docs/tracing.md): each request gets a SERVER span, a child of its `traceparent`,
   * and its RPCs carry the context in metadata. Unset: nothing is traced (a `traceparent`'s trace id is still logged).
   */
  tracing?: Tracing | undefined;
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

/** The credentials of a request as metadata for the internal API: its key, organization header and client address. */
function credentialsOf(ctx: Koa.Context): Record<string, string> {
  const credentials: Record<string, string> = {};
  if (ctx.get('authorization')) credentials.authorization = ctx.get('authorization');
  if (ctx.req.socket.remoteAddress) credentials['x-service-client-address'] = ctx.req.socket.remoteAddress;
  if (ctx.get('service-organization-id')) credentials['service-organization-id'] = ctx.get('service-organization-id');
  return credentials;
}

/**
 * The route template a request matched (`/api/v2/resolutions/:id`), the label the middleware that answered it gave
 * (`ctx.state.routeLabel`: a console asset's path, `/console`, `preflight`), or a fixed label: never a raw path the
 * client chose in metrics, so the label set stays bounded.
 */
function routeLabel(ctx: Koa.Context): string {
  const matched = (ctx as unknown as { _matchedRoute?: string })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (typeof ctx.state.routeLabel === 'string') return ctx.state.routeLabel;
  return ['/healthz', '/readyz', '/metrics', '/openapi.json', '/capabilities.json'].includes(ctx.path)
    ? ctx.path
    : 'unmatched';
}

/**
 * Builds the Koa gateway: it translates the REST contract onto the gRPC API and renders errors in the
 * contract's envelopes. It holds no business logic: auth, validation and rules live behind the RPCs.
 * Every request leaves one access-log line and one sample of the request histogram.
 */
export function createGateway(deps: GatewayDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  const router = new Router();
  const tracing = deps.tracing;
  const untraced = deps.inProcess ? inProcessCaller(deps.inProcess) : networkCaller(deps.clients);
  const call = tracing ? tracedCaller(untraced, tracing) : untraced;

  // With tracing, the whole request runs in its span's context: the RPCs it makes, in-process or not, are children.
  app.use((ctx, next) => {
    if (!tracing) return answer(ctx, next, undefined);
    const parent = tracing.extract((header) => ctx.get(header) || undefined);
    const span = tracing.tracer.startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': ctx.method,
          'url.path': ctx.path,
          'url.scheme': ctx.protocol,
          'network.protocol.version': ctx.req.httpVersion,
        },
      },
      parent,
    );
    return tracing.with(trace.setSpan(parent, span), () =>
      answer(ctx, next, span).catch((err: unknown) => {
        // Not expected (answer renders every error), but a span must end whatever happens.
        markSpanFailed(span, err);
        span.end();
        throw err;
      }),
    );
  });

  /**
   * Request id, correlation id, v1 headers, the error envelope and the access log apply to every response; `span`,
   * the request's span when tracing is on, is named by its route and ended with its status.
   */
  async function answer(ctx: Koa.Context, next: Koa.Next, span: Span | undefined): Promise<void> {
    const started = performance.now();
    ctx.state.startedAt = started;
    const requestId = newRequestId();
    const correlationId = correlationIdOf(ctx.get('x-request-id'));
    ctx.state.requestId = requestId;
    ctx.state.correlationId = correlationId;
    ctx.set('X-Service-Request-Id', requestId);
    if (correlationId !== undefined) ctx.set('X-Request-Id', correlationId);
    const isV1 = ctx.path.startsWith('/api/v1/');
    if (isV1) {
      ctx.set('Deprecation', 'false');
      ctx.set('Link', `<${ctx.protocol}://${ctx.host}/api/v2>; rel="successor-version"`);
    }
    let failure: { code: string; error?: unknown } | undefined;
    try {
      // HTTP/1.1 requires Host (RFC 9110 section 7.2); Node's own check would answer a bare 400 (answer-client-errors.ts).
      if (ctx.req.httpVersion === '1.1' && !ctx.get('host'))
        throw new ServiceError('VALIDATION_ERROR', 'An HTTP/1.1 request needs a Host header.', { field: 'Host' });
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ServiceError('ROUTE_NOT_FOUND', `No route for ${ctx.method} ${ctx.path}.`);
    } catch (err) {
      let headers = err instanceof RpcFailure ? err.headers : {};
      let se =
        err instanceof RpcFailure
          ? err.error
          : err instanceof ServiceError
            ? err
            : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
      // A refusal of the gateway's own (no route, malformed JSON, body over 1 MB) to an API request with credentials
      // goes through the internal API, which authenticates and counts it like any call and answers the RateLimit state.
      if (err instanceof ServiceError && se.status < 500 && ctx.path.startsWith('/api/') && ctx.get('authorization')) {
        ({ error: se, headers } = await refuseThroughApi(call, se, credentialsOf(ctx), {
          requestId,
          deadlineMs: deps.rpcDeadlineMs ?? 30_000,
        }));
      }
      failure = {
        code: se.code,
        error: se.status >= 500 ? (err instanceof RpcFailure ? (err.error.cause ?? err) : err) : undefined,
      };
      for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
      if (se.retryAfter !== undefined) ctx.set('Retry-After', String(se.retryAfter));
      ctx.status = se.status;
      ctx.body = isV1 ? v1ErrorBody(se) : v2ErrorBody(se, requestId);
    }
    const durationMs = performance.now() - started;
    const route = routeLabel(ctx);
    deps.metrics.httpDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, durationMs / 1000);
    if (failure) deps.metrics.errors.inc({ code: failure.code });
    const line = {
      door: 'rest',
      method: ctx.method,
      route,
      status: ctx.status,
      durationMs: Math.round(durationMs * 10) / 10,
      requestId,
      correlationId,
      traceId: span ? span.spanContext().traceId : traceIdOfTraceparent(ctx.get('traceparent') || undefined),
      errorCode: failure?.code,
    };
    // A shed request is the limit doing its job, not a failure: one warn line, no error per request under overload.
    if (ctx.state.shed === true) deps.logger.warn(line, 'request shed');
    else if (ctx.status >= 500) deps.logger.error({ ...line, err: failure?.error }, 'request failed');
    else deps.logger.info(line, 'request');
    if (span) {
      if (route !== 'unmatched') span.updateName(`${ctx.method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', ctx.status);
      if (failure) span.setAttribute('error.type', failure.code);
      // A 4xx is the client's: only a server error marks the span failed (OpenTelemetry's HTTP server conventions).
      if (ctx.status >= 500)
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure?.code ?? String(ctx.status) });
      span.end();
    }
  }

  // CORS answers preflights and marks answers to allowed origins, errors included (the middleware above renders them).
  app.use(
    answerCors({
      origins: deps.corsOrigins ?? [],
      methods: [...new Set(['GET', ...deps.routes.map((r) => r.method)])],
    }),
  );

  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/healthz') {
      // Answered from a later turn of the event loop: the loop runs, whatever the stores do.
      await new Promise((resolve) => setImmediate(resolve));
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/readyz') {
      const ok = await deps.ready().catch((err: unknown) => {
        if (err instanceof ServiceError) throw err;
        return false;
      });
      if (!ok)
        throw new ServiceError('SERVICE_UNAVAILABLE', 'Redis or PostgreSQL is not reachable.', { retryAfter: 1 });
      ctx.body = { status: 'ready' };
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/openapi.json') {
      ctx.body = deps.openapi();
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/capabilities.json') {
      ctx.body = deps.capabilities();
      return;
    }
    await next();
  });

  app.use(serveMetrics(deps.metrics, { token: deps.metricsToken, withoutToken: 'anonymous' }));

  // Only the API's routes are admitted: probes, scrapes, openapi.json and the console's pages and assets answer from
  // memory and are never shed (they must answer most of all when the service is busy). A request is admitted once its
  // body has arrived, so a slow sender holds no share of the work the process runs at once.
  const admission = createRequestAdmission({ limits: deps.admission ?? { limit: 0 }, metrics: deps.metrics });
  const deadlineMs = deps.rpcDeadlineMs ?? 30_000;
  const checkCredentials = createCredentialsCheck({
    call,
    deadlineMs,
    admittedToken: deps.admittedToken,
  });
  for (const route of deps.routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    router[method](route.path, async (ctx) => {
      // The key is checked before the body is read: a request without a valid one costs no read and no parse.
      if (hasBody && route.auth !== 'none') {
        await checkCredentials({
          authorization: ctx.get('authorization') || undefined,
          clientAddress: ctx.req.socket.remoteAddress,
          requestId: ctx.state.requestId as string,
        }).catch((err: unknown) => {
          // Its body stays unread: the connection closes after the answer rather than read it (Node then discards it).
          ctx.set('Connection', 'close');
          throw err;
        });
      }
      const body = hasBody ? await readJsonBody(ctx.req) : undefined;
      const input = { params: { ...ctx.params }, query: flatQuery(ctx.query), body: body?.value };
      // The request message, mapped one way (request-message-of.ts); what it cannot carry is refused at the edge.
      let message: Record<string, unknown>;
      try {
        message = requestMessageOf(route, input);
      } catch (err) {
        // A request whose key was not checked yet (no body) is judged on its key first, as the RPC would have judged it.
        if (!hasBody && route.auth !== 'none')
          await checkCredentials({
            authorization: ctx.get('authorization') || undefined,
            clientAddress: ctx.req.socket.remoteAddress,
            requestId: ctx.state.requestId as string,
          });
        throw err;
      }
      const ticket = await admission.admit(ctx, deadlineMs - (performance.now() - ctx.state.startedAt));
      try {
        await answerRoute(ctx, route, message);
      } catch (err) {
        // A REST form of another route's RPC (a v1 form) names the error's fields as its input did.
        if (err instanceof RpcFailure && route.restForm?.error)
          throw new RpcFailure(route.restForm.error(err.error, input), err.headers);
        throw err;
      } finally {
        ticket.leave();
      }
    });
  }

  /** Calls the route's RPC with its request `message` and writes its answer (an event stream: opens it). */
  async function answerRoute(ctx: Koa.Context, route: RouteSpec, message: Record<string, unknown>) {
    const md = new Metadata();
    md.set('x-service-request-id', ctx.state.requestId as string);
    md.set('x-service-door', 'rest');
    const clientAddress = ctx.req.socket.remoteAddress;
    if (clientAddress !== undefined) md.set('x-service-client-address', clientAddress);
    if (deps.admittedToken !== undefined) md.set(ADMITTED_TOKEN_KEY, deps.admittedToken);
    if (ctx.state.correlationId !== undefined) md.set('x-request-id', ctx.state.correlationId as string);
    // Unary calls carry the trace context through `call` (traced-caller.ts); a stream's is set here.
    if (tracing && route.stream) tracing.inject(tracing.active(), (key, value) => md.set(key, value));
    for (const h of PASSED_HEADERS) {
      const v = ctx.get(h);
      if (v) setHeaderMetadata(md, h, v);
    }
    // Every request goes typed now; the metric keeps its name and its `typed` series (docs/internal-api.md).
    deps.metrics.gatewayRequestForm.inc({ form: 'typed' });
    if (route.stream) {
      // A streaming call lives as long as the response: it is cancelled when the response closes, whoever closed it.
      // It waits for the first message, so a refusal is thrown here and rendered as the usual error envelope.
      // The access log line and the request histogram record the time to the first message.
      const abort = new AbortController();
      ctx.res.once('close', () => abort.abort());
      const opened = await openRpcStream(deps.streamClients[route.service], route.rpc, message, md, {
        signal: abort.signal,
      });
      serveEventStream(ctx, opened, {
        event: route.stream.event,
        requestId: ctx.state.requestId as string,
        render: (message) => restJsonOf(route, message),
      });
      return;
    }
    // The call is cancelled only when the client goes away before its answer is written (the response closes
    // unfinished); the request stream's own 'close' also fires once a body has been read, which is no reason.
    const abort = new AbortController();
    const onClose = () => {
      if (!ctx.res.writableFinished) abort.abort();
    };
    ctx.res.once('close', onClose);
    try {
      const out = await call(route.service, route.rpc, message, md, {
        deadlineMs: deadlineMs - (performance.now() - ctx.state.startedAt),
        signal: abort.signal,
      });
      for (const [k, v] of Object.entries(out.headers)) ctx.set(k, v);
      ctx.status = route.successStatus ?? 200;
      if (route.htmlAnswer && typeof out.response.htmlPage === 'string' && out.response.htmlPage !== '') {
        ctx.body = out.response.htmlPage;
      } else {
        ctx.type = 'application/json';
        ctx.body = restJsonOf(route, out.response, message);
      }
    } finally {
      ctx.res.off('close', onClose);
    }
  }

  app.use(serveConsole());
  app.use(router.routes());
  return app;
}
