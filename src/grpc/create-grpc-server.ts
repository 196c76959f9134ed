import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { Metadata, Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { ReflectionService } from '@grpc/reflection';
import * as protoLoader from '@grpc/proto-loader';
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors/service-error.js';
import type { Authenticate } from '../application/authenticate.js';
import type { RateLimiter } from '../application/rate-limiter.js';
import type { Caller } from '../application/caller.js';
import { isAnswer, isStreaming, type OperationInput, type OperationSpec, type OperationTable, type StreamingOperationSpec } from '../application/operation.js';
import type { RecordHeaderUse } from '../application/audit/record-header-use.js';
import type { Database } from '../persistence/database.js';
import { encodeServiceError } from './error-metadata.js';
import { createCallObserver } from './observe-calls.js';
import { guardCodecs, isUndecodable, type UndecodableRequest } from './guard-codecs.js';
import type { ServiceLogger } from '../observability/create-logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import { GRPC_SERVICES, qualifiedServiceName } from './service-registry.js';
import { GRPC_CHANNEL_OPTIONS } from './grpc-channel-options.js';

const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../proto');

/** The generic request message of every RPC: path and query parameters and a JSON body (as text, or as a Value). */
interface RpcRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  bodyJson: string;
}

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
}

/** Reads the first string value of a metadata key. */
function mdString(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return v === undefined ? undefined : String(v);
}

/** Loads the proto files as a package definition, for server reflection. */
function loadPackageDefinition() {
  const files = Object.keys(GRPC_SERVICES).map((n) => `scheduling/v1/${n.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()}.proto`);
  return protoLoader.loadSync(files, { includeDirs: [PROTO_DIR], keepCase: true, defaults: true });
}

/**
 * Builds the gRPC server: each RPC authenticates the caller once (API key in metadata), applies the shared
 * rate limit, runs its operation, and maps errors to statuses with the contract's code in trailers.
 * Health checking and server reflection are served too.
 */
export function createGrpcServer(deps: GrpcServerDeps) {
  const server = new Server({ ...GRPC_CHANNEL_OPTIONS.server, interceptors: [createCallObserver(deps)] });
  // Open server streams: stop() ends them, since a graceful shutdown waits for every call and a stream never ends alone.
  const streams = new Set<AbortController>();
  const health = new HealthImplementation({ '': 'SERVING' });
  for (const [name, table] of Object.entries(deps.operations) as [GrpcServiceName, OperationTable][]) {
    const definition = guardCodecs(GRPC_SERVICES[name].definition, deps.logger);
    const impl: UntypedServiceImplementation = {};
    for (const [method, def] of Object.entries(definition)) {
      const rpc = def.path.split('/')[2] ?? method;
      const spec = table[rpc];
      if (!spec) continue;
      if (def.responseStream) {
        if (!isStreaming(spec)) throw new Error(`${name}/${rpc} streams but its operation does not`);
        impl[method] = (call: ServerWritableStream<RpcRequest, unknown>) => {
          void handleStream(deps, spec, rpc, call, streams);
        };
        continue;
      }
      if (isStreaming(spec)) throw new Error(`${name}/${rpc} is unary but its operation streams`);
      impl[method] = (call: ServerUnaryCall<RpcRequest, unknown>, callback: sendUnaryData<unknown>) => {
        void handleCall(deps, spec, rpc, call, callback);
      };
    }
    server.addService(definition, impl);
    health.setStatus(qualifiedServiceName(name), 'SERVING');
  }
  health.addToServer(server);
  new ReflectionService(loadPackageDefinition()).addToServer(server);
  return {
    server,
    health,
    /** Binds and starts on host:port; resolves with the bound port. */
    listen(host: string, port: number): Promise<number> {
      return new Promise((resolve, reject) => {
        server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
      });
    },
    stop(): Promise<void> {
      for (const s of streams) s.abort(SHUTDOWN);
      return new Promise((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

/** What every call starts from: its request id, the trailers it will answer, and its operation input. */
function startCall(md: Metadata, request: RpcRequest | UndecodableRequest) {
  const requestId = mdString(md, 'x-service-request-id') ?? `req_${randomUUID().replace(/-/g, '')}`;
  const trailers = new Metadata();
  trailers.set('x-service-request-id', requestId);
  const headers: Record<string, string> = {};
  for (const h of PASSED_HEADERS) {
    const v = mdString(md, h);
    if (v !== undefined) headers[h] = v;
  }
  const decoded = decodeRequest(request);
  const undecodable = 'reason' in decoded ? decoded.reason : undefined;
  const input: OperationInput = 'input' in decoded ? { ...decoded.input, headers } : { params: {}, query: {}, body: undefined, headers };
  return { requestId, trailers, input, undecodable };
}

/**
 * Authenticates a call and counts it against the rate limit. The key is counted as soon as it is known valid, so every
 * answer after that (a refused organization header included) carries the RateLimit state in its trailers, errors too.
 * Then a request that could not be decoded is refused.
 */
async function authenticateCall(deps: GrpcServerDeps, md: Metadata, requestId: string, trailers: Metadata, undecodable: string | undefined): Promise<Caller> {
  const caller = await deps.authenticate({ authorization: mdString(md, 'authorization'), organizationHeader: mdString(md, 'service-organization-id'), requestId }, async (keyId) => {
    const rl = await deps.rateLimit(keyId);
    trailers.set('rest-header-ratelimit-limit', String(rl.limit));
    trailers.set('rest-header-ratelimit-remaining', String(rl.remaining));
    trailers.set('rest-header-ratelimit-reset', String(rl.reset));
    if (!rl.allowed) throw new ServiceError('RATE_LIMITED', `Rate limit of ${rl.limit} requests per minute exceeded.`, { retryAfter: rl.reset });
  });
  refuseUndecodable(undecodable);
  return caller;
}

/** Refuses a request grpc-js could not decode (or whose body_json is not JSON) as 400 VALIDATION_ERROR on `body`. */
function refuseUndecodable(undecodable: string | undefined): void {
  if (undecodable !== undefined) throw new ServiceError('VALIDATION_ERROR', `The request could not be decoded: ${undecodable}`, { field: 'body', details: [{ field: 'body', code: 'UNDECODABLE', message: 'could not be decoded as the method\'s request message or as JSON' }] });
}

async function handleCall(
  deps: GrpcServerDeps,
  spec: OperationSpec,
  rpc: string,
  call: ServerUnaryCall<RpcRequest, unknown>,
  callback: sendUnaryData<unknown>,
) {
  const md = call.metadata;
  const { requestId, trailers, input, undecodable } = startCall(md, call.request);
  let caller: Caller | undefined;
  try {
    if (spec.auth === 'none') refuseUndecodable(undecodable);
    else caller = await authenticateCall(deps, md, requestId, trailers, undecodable);
    const out = await spec.handler(caller ?? anonymousCaller(requestId), input);
    if (caller?.viaOrganizationHeader) await deps.recordHeaderUse(caller, spec.audit, input, { ok: true, replayed: isAnswer(out) && out.headers['idempotent-replayed'] === 'true' });
    const result = isAnswer(out) ? out.result : out;
    if (isAnswer(out)) for (const [k, v] of Object.entries(out.headers)) trailers.set(`rest-header-${k.toLowerCase()}`, v);
    // The result travels as JSON text: the gateway passes it through as the REST body without re-encoding it.
    callback(null, { resultJson: JSON.stringify(result ?? null) }, trailers);
  } catch (err) {
    let se = err instanceof ServiceError ? err : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
    if (se.code === 'INTERNAL_ERROR') deps.logger.error({ rpc, requestId, err }, 'internal error');
    // A failed call made with the header is recorded too (after authentication only: the organization is then known).
    if (caller?.viaOrganizationHeader) se = await deps.recordHeaderUse(caller, spec.audit, input, { ok: false, errorCode: se.code }).then(() => se, (e: unknown) => e as ServiceError);
    callback(encodeServiceError(se, trailers) as never, null);
  }
}

/** Why stop() aborted a stream. */
const SHUTDOWN = Symbol('server shutdown');

/**
 * Runs a server-streaming call: authenticates it like a unary call, then lets the operation send messages. The
 * RateLimit state goes out in the response headers with the first message (a REST edge sets them before its body);
 * an error before the first message is answered like a unary call's. A client that cancels aborts the operation.
 */
async function handleStream(deps: GrpcServerDeps, spec: StreamingOperationSpec, rpc: string, call: ServerWritableStream<RpcRequest, unknown>, streams: Set<AbortController>) {
  const md = call.metadata;
  const { requestId, trailers, input, undecodable } = startCall(md, call.request);
  const abort = new AbortController();
  streams.add(abort);
  const onCancelled = () => abort.abort();
  call.once('cancelled', onCancelled);
  let caller: Caller | undefined;
  let started = false;
  try {
    caller = await authenticateCall(deps, md, requestId, trailers, undecodable);
    const who = caller;
    await spec.stream(who, input, async (result) => {
      if (abort.signal.aborted) return;
      // A key revoked or expired while the stream is open gets nothing more: every later message checks the key
      // again (the credential cache answers, so this costs no query), without counting it against the rate limit.
      if (started) await deps.authenticate({ authorization: mdString(md, 'authorization'), organizationHeader: mdString(md, 'service-organization-id'), requestId }, async () => undefined);
      if (!started) {
        started = true;
        if (who.viaOrganizationHeader) await deps.recordHeaderUse(who, spec.audit, input, { ok: true, replayed: false });
        const head = new Metadata();
        for (const [k, v] of Object.entries(trailers.getMap())) if (k.startsWith('rest-header-') || k === 'x-service-request-id') head.set(k, String(v));
        call.sendMetadata(head);
      }
      // Backpressure: a slow reader holds the next view back rather than buffering views without bound.
      if (!call.write({ resultJson: JSON.stringify(result ?? null) })) await once(call, 'drain', { signal: abort.signal }).catch(() => undefined);
    }, abort.signal);
    if (abort.signal.reason === SHUTDOWN) throw new ServiceError('SERVICE_UNAVAILABLE', 'The service is shutting down: follow again.', { retryAfter: 1 });
    if (!call.cancelled) call.end(trailers);
  } catch (err) {
    if (call.cancelled) return;
    let se = err instanceof ServiceError ? err : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
    if (se.code === 'INTERNAL_ERROR') deps.logger.error({ rpc, requestId, err }, 'internal error');
    if (caller?.viaOrganizationHeader && !started) se = await deps.recordHeaderUse(caller, spec.audit, input, { ok: false, errorCode: se.code }).then(() => se, (e: unknown) => e as ServiceError);
    call.emit('error', encodeServiceError(se, trailers));
  } finally {
    streams.delete(abort);
    call.off('cancelled', onCancelled);
  }
}

/** The operation input of a request message, or why it cannot be read (a message grpc-js could not decode, or body_json that is not JSON). */
function decodeRequest(request: RpcRequest | UndecodableRequest): { input: Omit<OperationInput, 'headers'> } | { reason: string } {
  if (isUndecodable(request)) return { reason: request.reason };
  let body = request.body;
  if (request.bodyJson) {
    try {
      body = JSON.parse(request.bodyJson);
    } catch (err) {
      return { reason: `body_json is not JSON (${(err as Error).message})` };
    }
  }
  return { input: { params: request.params ?? {}, query: request.query ?? {}, body } };
}

/** A placeholder caller for operations whose input is its own credential. */
function anonymousCaller(requestId: string): Caller {
  return { requestId, keyId: '', keyType: 'organization_test', mode: 'test', platformId: '', organizationId: '', isPlatformKey: false, viaOrganizationHeader: false };
}
