import { once } from 'node:events';
import {
  Metadata,
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors/service-error.js';
import type { Authenticate } from '../application/authenticate.js';
import type { RateLimiter } from '../application/rate-limiter.js';
import type { Caller } from '../application/caller.js';
import {
  isAnswer,
  isStreaming,
  type OperationAudit,
  type OperationInput,
  type OperationTable,
  type TypedOperationSpec,
  type TypedStreamingOperationSpec,
} from '../application/operation.js';
import type { RecordHeaderUse } from '../application/audit/record-header-use.js';
import type { OpenStream, OpenStreams } from '../application/open-streams.js';
import type { Database } from '../persistence/database.js';
import { encodeServiceError } from './error-metadata.js';
import { carryServiceError } from './carried-service-error.js';
import { createInProcessCalls, type UnaryMethod } from './in-process-calls.js';
import { headerFromMetadata } from './header-metadata.js';
import { createCallObserver } from './observe-calls.js';
import { createCallSpans } from './call-spans.js';
import type { Tracing } from '../observability/create-tracing.js';
import { runForCall } from './run-for-call.js';
import { admitCalls, type CallAdmission } from './admit-calls.js';
import { guardCodecs, isUndecodable, type UndecodableRequest } from './guard-codecs.js';
import type { ServiceLogger } from '../observability/create-logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import { GRPC_SERVICES, qualifiedServiceName } from './service-registry.js';
import { GRPC_CHANNEL_OPTIONS } from './grpc-channel-options.js';
import { addReflection, HEALTH_SERVICE_NAME } from './add-reflection.js';
import { ALL_ROUTES } from '../contract/routes/all-routes.js';
import type { RouteSpec } from '../contract/route.js';
import { addressOfPeer } from '../application/failed-auth-limit.js';
import { pathParamsOfMessage } from '../contract/request-message-of.js';

/** A request message: the typed fields of the method (a ts-proto object). */
type RpcRequest = Record<string, unknown>;

/** The route of each RPC (`ProviderService/GetProvider`): the REST shapes its typed messages carry. */
const ROUTE_OF_RPC = new Map<string, RouteSpec>(
  // A route whose REST form maps its input onto another route's RPC (a v1 form) is not that RPC's route; one whose form
  // only renders the answer (the v1 direct path) is.
  ALL_ROUTES.filter((r) => !r.restForm?.request).map((r) => [`${r.service}/${r.rpc}`, r]),
);

/** Metadata keys passed through from REST headers to operations. */
const PASSED_HEADERS = ['idempotency-key', 'accept'];

/** Dependencies of the gRPC server. */
export interface GrpcServerDeps {
  operations: Partial<Record<GrpcServiceName, OperationTable>>;
  authenticate: Authenticate;
  rateLimit: RateLimiter;
  db: Database;
  /** Records calls made with Service-Organization-Id before their answer leaves (no PostgreSQL round trip). */
  recordHeaderUse: RecordHeaderUse;
  clock: () => Date;
  logger: ServiceLogger;
  metrics: ServiceMetrics;
  /** The limit on calls worked on at once (see admit-calls.ts); unset: no limit. */
  admission?: Omit<CallAdmission, 'metrics'>;
  /** Admits server streams within the per-key, per-organization and per-process limits, and ends revoked keys' streams. */
  streams: OpenStreams;
  /** OpenTelemetry tracing, when on: a span per call (call-spans.ts), its handler's store work under it. */
  tracing?: Tracing | undefined;
}

/** Reads the first value of a metadata key as text (a header sent as `<key>-bin` too: see header-metadata.ts). */
function mdString(md: Metadata, key: string): string | undefined {
  return headerFromMetadata(md, key);
}

/**
 * Builds the gRPC server: each RPC authenticates the caller once (API key in metadata), applies the shared
 * rate limit, runs its operation, and maps errors to statuses with a `google.rpc.Status` in trailers (the contract's
 * code as ErrorInfo reason). Health checking and server reflection are served too.
 */
export function createGrpcServer(deps: GrpcServerDeps) {
  // Admission is the outer interceptor: a shed call's status still passes the observer (metrics, log line).
  const admission = admitCalls({ limits: { limit: 0 }, ...deps.admission, metrics: deps.metrics });
  const tracing = deps.tracing;
  const spans = tracing ? createCallSpans(tracing) : undefined;
  const interceptors = [createCallObserver({ ...deps, spans }), admission];
  /** Runs a call's handler in its span's context, when it has one. */
  const inCallContext = (md: Metadata, run: () => void): void => {
    const ctx = spans?.contextOf(md);
    if (ctx && tracing) tracing.with(ctx, run);
    else run();
  };
  const server = new Server({ ...GRPC_CHANNEL_OPTIONS.server, interceptors });
  // The unary methods by path, which this process's own gateway calls in-process through the same interceptors.
  const unaryMethods = new Map<string, UnaryMethod>();
  // Open server streams: stop() ends them, since a graceful shutdown waits for every call and a stream never ends alone.
  const streams = new Set<AbortController>();
  const health = new HealthImplementation({ '': 'SERVING' });
  for (const name of Object.keys(GRPC_SERVICES) as GrpcServiceName[])
    if (!deps.operations[name]) throw new Error(`${name}: no implementation`);
  for (const [name, table] of Object.entries(deps.operations) as [GrpcServiceName, OperationTable][]) {
    const definition = guardCodecs(GRPC_SERVICES[name].definition, deps.logger);
    const impl: UntypedServiceImplementation = {};
    /** Serves a unary method with `run` in its call's context; an error `run` did not answer is INTERNAL_ERROR. */
    const addUnary = (
      method: string,
      def: (typeof definition)[string],
      rpc: string,
      run: (call: ServerUnaryCall<RpcRequest, unknown>, callback: sendUnaryData<unknown>) => Promise<void>,
    ) => {
      const handler = (call: ServerUnaryCall<RpcRequest, unknown>, callback: sendUnaryData<unknown>) => {
        inCallContext(call.metadata, () => {
          run(call, callback).catch((err: unknown) =>
            lastResort(deps, rpc, err, () => {
              const internal = new ServiceError('INTERNAL_ERROR');
              callback(carryServiceError(encodeServiceError(internal), internal) as never, null);
            }),
          );
        });
      };
      impl[method] = handler;
      unaryMethods.set(def.path, { definition: def, handler: handler as UnaryMethod['handler'] });
    };
    for (const [method, def] of Object.entries(definition)) {
      const rpc = def.path.split('/')[2] ?? method;
      const spec = table[rpc];
      // Every RPC of the proto is implemented (src/api/create-typed-services.ts): none is left to answer UNIMPLEMENTED.
      if (!spec) throw new Error(`${name}/${rpc}: no implementation`);
      const route = ROUTE_OF_RPC.get(`${name}/${rpc}`);
      if (def.responseStream !== isStreaming(spec))
        throw new Error(`${name}/${rpc}: an RPC streams exactly when its method does`);
      if (isStreaming(spec)) {
        if (!route) throw new Error(`${name}/${rpc}: a streaming RPC has a route`);
        impl[method] = (call: ServerWritableStream<RpcRequest, unknown>) => {
          inCallContext(call.metadata, () => {
            handleStream(deps, spec, rpc, route, call, streams).catch((err: unknown) =>
              lastResort(deps, rpc, err, () =>
                call.emit('error', encodeServiceError(new ServiceError('INTERNAL_ERROR'))),
              ),
            );
          });
        };
        continue;
      }
      addUnary(method, def, rpc, (call, callback) => handleTypedCall(deps, spec, rpc, route, call, callback));
    }
    server.addService(definition, impl);
    health.setStatus(qualifiedServiceName(name), 'SERVING');
  }
  health.addToServer(server);
  addReflection(server, [
    HEALTH_SERVICE_NAME,
    ...Object.keys(deps.operations).map((n) => qualifiedServiceName(n as GrpcServiceName)),
  ]);
  return {
    server,
    health,
    /** The unary calls of this process's own gateway, served without the network (see in-process-calls.ts). */
    inProcess: createInProcessCalls(interceptors, unaryMethods),
    /** Binds and starts on host:port; resolves with the bound port. */
    listen(host: string, port: number): Promise<number> {
      return new Promise((resolve, reject) => {
        server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, bound) =>
          err ? reject(err) : resolve(bound),
        );
      });
    },
    stop(): Promise<void> {
      for (const s of streams) s.abort(SHUTDOWN);
      return new Promise((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

/**
 * What every call starts from: its request id, the trailers it will answer, and the operation input it records before
 * its request message is read (the passed headers). A call's message is judged only once its key is known valid
 * (typedMessageOfCall): an unknown key is answered UNAUTHENTICATED whatever the message.
 */
function startCall(md: Metadata) {
  const requestId = mdString(md, 'x-service-request-id') ?? `req_${randomUUID().replace(/-/g, '')}`;
  const trailers = new Metadata();
  trailers.set('x-service-request-id', requestId);
  const headers: Record<string, string> = {};
  for (const h of PASSED_HEADERS) {
    const v = mdString(md, h);
    if (v !== undefined) headers[h] = v;
  }
  const unread: OperationInput = { params: {}, query: {}, body: undefined, headers };
  return { requestId, trailers, unread };
}

/**
 * The address failed authentications of a call are counted against: the client's, which a caller relaying for
 * clients names in `x-service-client-address` (the REST gateway does), else the peer's.
 */
function clientAddressOf(md: Metadata, peer: string): string {
  return mdString(md, 'x-service-client-address') ?? addressOfPeer(peer);
}

/**
 * Authenticates a call and counts it against the rate limit (unless `counted` is false). The key is counted as soon as
 * it is known valid, so every answer after that (a refused organization header included) carries the RateLimit state
 * in its trailers, errors too.
 */
async function authenticateCall(
  deps: GrpcServerDeps,
  md: Metadata,
  requestId: string,
  trailers: Metadata,
  opts: { peer: string; counted: boolean },
): Promise<Caller> {
  return deps.authenticate(
    {
      authorization: mdString(md, 'authorization'),
      organizationHeader: mdString(md, 'service-organization-id'),
      requestId,
      clientAddress: clientAddressOf(md, opts.peer),
    },
    async (keyId) => {
      if (!opts.counted) return;
      const rl = await deps.rateLimit(keyId);
      trailers.set('rest-header-ratelimit-limit', String(rl.limit));
      trailers.set('rest-header-ratelimit-remaining', String(rl.remaining));
      trailers.set('rest-header-ratelimit-reset', String(rl.reset));
      if (!rl.allowed)
        throw new ServiceError('RATE_LIMITED', `Rate limit of ${rl.limit} requests per minute exceeded.`, {
          retryAfter: rl.reset,
        });
    },
  );
}

/** The 400 VALIDATION_ERROR of a request message that cannot be decoded, on `body`. */
function undecodableError(reason: string): ServiceError {
  return new ServiceError('VALIDATION_ERROR', `The request could not be decoded: ${reason}`, {
    field: 'body',
    details: [{ field: 'body', code: 'UNDECODABLE', message: "could not be decoded as the method's request message" }],
  });
}

/**
 * Answers a unary call that failed with its contract error (INTERNAL_ERROR, logged, for anything else). A failed call
 * made with the Service-Organization-Id header is recorded too (after authentication only: the organization is then
 * known); a failure to record it is the answer instead.
 */
async function answerFailedCall(
  deps: GrpcServerDeps,
  call: {
    rpc: string;
    requestId: string;
    caller: Caller | undefined;
    audit: OperationAudit;
    input: OperationInput;
    trailers: Metadata;
  },
  err: unknown,
  callback: sendUnaryData<unknown>,
): Promise<void> {
  let se = err instanceof ServiceError ? err : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
  if (se.code === 'INTERNAL_ERROR')
    deps.logger.error({ rpc: call.rpc, requestId: call.requestId, err }, 'internal error');
  if (call.caller?.viaOrganizationHeader)
    se = await deps.recordHeaderUse(call.caller, call.audit, call.input, { ok: false, errorCode: se.code }).then(
      () => se,
      (e: unknown) => e as ServiceError,
    );
  callback(carryServiceError(encodeServiceError(se, call.trailers), se) as never, null);
}

/**
 * Runs a call of an RPC on its typed messages: authenticated and counted like any call
 * (unless `uncounted`, or its request is the credential, `auth: 'none'`), then its decoded request message goes to
 * the implementation as it is, with the passed headers, and its response message is the answer (its REST headers as
 * trailers).
 */
async function handleTypedCall(
  deps: GrpcServerDeps,
  spec: TypedOperationSpec,
  rpc: string,
  route: RouteSpec | undefined,
  call: ServerUnaryCall<RpcRequest, unknown>,
  callback: sendUnaryData<unknown>,
) {
  const md = call.metadata;
  const { requestId, trailers, unread } = startCall(md);
  let caller: Caller | undefined;
  let input = unread;
  try {
    if (spec.auth !== 'none')
      caller = await authenticateCall(deps, md, requestId, trailers, {
        peer: call.getPeer(),
        counted: spec.uncounted !== true,
      });
    const request = typedMessageOfCall(call.request);
    if (route) input = { ...unread, params: pathParamsOfMessage(route, request) };
    const who = caller ?? anonymousCaller(requestId);
    const out = await runForCall(call, () => spec.handle(who, request, { headers: unread.headers }));
    const replayed = isAnswer(out) && out.headers['idempotent-replayed'] === 'true';
    if (caller?.viaOrganizationHeader) await deps.recordHeaderUse(caller, spec.audit, input, { ok: true, replayed });
    if (isAnswer(out))
      for (const [k, v] of Object.entries(out.headers)) trailers.set(`rest-header-${k.toLowerCase()}`, v);
    callback(null, isAnswer(out) ? out.result : out, trailers);
  } catch (err) {
    await answerFailedCall(deps, { rpc, requestId, caller, audit: spec.audit, input, trailers }, err, callback);
  }
}

/** The typed request message of a call: the decoded message itself; one that could not be decoded is refused. */
function typedMessageOfCall(request: RpcRequest | UndecodableRequest): RpcRequest {
  if (isUndecodable(request)) throw undecodableError(request.reason);
  return request;
}

/**
 * A call whose own answering threw (a value grpc-js refuses in a trailer, say): logged and answered INTERNAL if it can
 * still be answered, never left as an unhandled rejection, which would end the process and every call in it.
 */
function lastResort(deps: GrpcServerDeps, rpc: string, err: unknown, answer: () => void): void {
  deps.logger.error({ rpc, err }, 'a call failed while answering');
  try {
    answer();
  } catch {
    // Already answered, or gone: nothing more to send.
  }
}

/** Why stop() aborted a stream. */
const SHUTDOWN = Symbol('server shutdown');

/**
 * Runs a server-streaming call: authenticates it like a unary call, admits it within the stream limits (open-streams.ts:
 * per key and per organization over the cluster, per process), then lets the operation send messages. The RateLimit
 * state goes out in the response headers with the first message (a REST edge sets them before its body); an error
 * before the first message is answered like a unary call's. A client that cancels aborts the operation; so does the
 * revocation or expiry of the call's key, which ends the stream with UNAUTHENTICATED.
 */
async function handleStream(
  deps: GrpcServerDeps,
  spec: TypedStreamingOperationSpec,
  rpc: string,
  route: RouteSpec,
  call: ServerWritableStream<RpcRequest, unknown>,
  streams: Set<AbortController>,
) {
  const md = call.metadata;
  const { requestId, trailers, unread } = startCall(md);
  let input = unread;
  const abort = new AbortController();
  streams.add(abort);
  const onCancelled = () => abort.abort();
  call.once('cancelled', onCancelled);
  let caller: Caller | undefined;
  let admitted: OpenStream | undefined;
  const onEnded = () => abort.abort(admitted?.signal.reason);
  let started = false;
  try {
    caller = await authenticateCall(deps, md, requestId, trailers, { peer: call.getPeer(), counted: true });
    const who = caller;
    // The RPC gets its decoded request message and sends its messages as they are.
    const message = typedMessageOfCall(call.request);
    input = { ...unread, params: pathParamsOfMessage(route, message) };
    admitted = await deps.streams.open(caller);
    admitted.signal.addEventListener('abort', onEnded, { once: true });
    await spec.stream(
      who,
      message,
      async (result) => {
        if (abort.signal.aborted) return;
        // A key revoked or expired while the stream is open gets nothing more: every later message checks the key
        // again (the credential cache answers, so this costs no query), without counting it against the rate limit.
        // Between messages, open-streams.ts reads the keys of open streams four times a second.
        if (started)
          await deps.authenticate(
            {
              authorization: mdString(md, 'authorization'),
              organizationHeader: mdString(md, 'service-organization-id'),
              requestId,
              clientAddress: clientAddressOf(md, call.getPeer()),
            },
            async () => undefined,
          );
        if (!started) {
          started = true;
          if (who.viaOrganizationHeader)
            await deps.recordHeaderUse(who, spec.audit, input, { ok: true, replayed: false });
          const head = new Metadata();
          for (const [k, v] of Object.entries(trailers.getMap()))
            if (k.startsWith('rest-header-') || k === 'x-service-request-id') head.set(k, String(v));
          call.sendMetadata(head);
        }
        // Backpressure: a slow reader holds the next view back rather than buffering views without bound.
        if (!call.write(result)) await once(call, 'drain', { signal: abort.signal }).catch(() => undefined);
      },
      abort.signal,
    );
    const reason: unknown = abort.signal.reason;
    if (reason === SHUTDOWN)
      throw new ServiceError('SERVICE_UNAVAILABLE', 'The service is shutting down: follow again.', { retryAfter: 1 });
    if (reason instanceof ServiceError) throw reason;
    if (!call.cancelled) call.end(trailers);
  } catch (err) {
    if (call.cancelled) return;
    let se = err instanceof ServiceError ? err : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
    if (se.code === 'INTERNAL_ERROR') deps.logger.error({ rpc, requestId, err }, 'internal error');
    if (caller?.viaOrganizationHeader && !started)
      se = await deps.recordHeaderUse(caller, spec.audit, input, { ok: false, errorCode: se.code }).then(
        () => se,
        (e: unknown) => e as ServiceError,
      );
    call.emit('error', encodeServiceError(se, trailers));
  } finally {
    admitted?.signal.removeEventListener('abort', onEnded);
    admitted?.close();
    streams.delete(abort);
    call.off('cancelled', onCancelled);
  }
}

/** A placeholder caller for operations whose input is its own credential. */
function anonymousCaller(requestId: string): Caller {
  return {
    requestId,
    keyId: '',
    keyType: 'organization_test',
    mode: 'test',
    platformId: '',
    organizationId: '',
    isPlatformKey: false,
    viaOrganizationHeader: false,
  };
}
