import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Metadata, Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { ReflectionService } from '@grpc/reflection';
import * as protoLoader from '@grpc/proto-loader';
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors/service-error.js';
import type { Authenticate } from '../application/authenticate.js';
import type { RateLimiter } from '../application/rate-limiter.js';
import type { Caller } from '../application/caller.js';
import { isAnswer, type OperationInput, type OperationTable } from '../application/operation.js';
import { appendAudit } from '../persistence/audit-log.js';
import type { Database } from '../persistence/database.js';
import { encodeServiceError } from './error-metadata.js';
import { GRPC_SERVICES, qualifiedServiceName, type GrpcServiceName } from './service-registry.js';

const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../proto');

/** Metadata keys passed through from REST headers to operations. */
const PASSED_HEADERS = ['idempotency-key', 'accept'];

/** Dependencies of the gRPC server. */
export interface GrpcServerDeps {
  operations: Partial<Record<GrpcServiceName, OperationTable>>;
  authenticate: Authenticate;
  rateLimit: RateLimiter;
  db: Database;
  clock: () => Date;
  log: (msg: string, extra?: Record<string, unknown>) => void;
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
  const server = new Server({ 'grpc.max_receive_message_length': 8 * 1024 * 1024 });
  const health = new HealthImplementation({ '': 'SERVING' });
  for (const [name, table] of Object.entries(deps.operations) as [GrpcServiceName, OperationTable][]) {
    const { definition } = GRPC_SERVICES[name];
    const impl: UntypedServiceImplementation = {};
    for (const [method, def] of Object.entries(definition)) {
      const rpc = def.path.split('/')[2] ?? method;
      const spec = table[rpc];
      if (!spec) continue;
      impl[method] = (call: ServerUnaryCall<{ params: Record<string, string>; query: Record<string, string>; body: unknown }, unknown>, callback: sendUnaryData<unknown>) => {
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
      return new Promise((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

async function handleCall(
  deps: GrpcServerDeps,
  spec: OperationTable[string],
  rpc: string,
  call: ServerUnaryCall<{ params: Record<string, string>; query: Record<string, string>; body: unknown }, unknown>,
  callback: sendUnaryData<unknown>,
) {
  const md = call.metadata;
  const requestId = mdString(md, 'x-service-request-id') ?? `req_${randomUUID().replace(/-/g, '')}`;
  const trailers = new Metadata();
  trailers.set('x-service-request-id', requestId);
  const headers: Record<string, string> = {};
  for (const h of PASSED_HEADERS) {
    const v = mdString(md, h);
    if (v !== undefined) headers[h] = v;
  }
  const input: OperationInput = { params: call.request.params ?? {}, query: call.request.query ?? {}, body: call.request.body, headers };
  let caller: Caller | undefined;
  try {
    if (spec.auth === 'none') {
      caller = undefined;
    } else {
      caller = await deps.authenticate({ authorization: mdString(md, 'authorization'), organizationHeader: mdString(md, 'service-organization-id'), requestId });
      const rl = await deps.rateLimit(caller.keyId);
      trailers.set('rest-header-ratelimit-limit', String(rl.limit));
      trailers.set('rest-header-ratelimit-remaining', String(rl.remaining));
      trailers.set('rest-header-ratelimit-reset', String(rl.reset));
      if (!rl.allowed) throw new ServiceError('RATE_LIMITED', `Rate limit of ${rl.limit} requests per minute exceeded.`, { retryAfter: rl.reset });
    }
    const out = await spec.handler(caller ?? anonymousCaller(requestId), input);
    if (caller?.viaOrganizationHeader) await auditHeaderUse(deps, caller, spec.audit, input);
    const result = isAnswer(out) ? out.result : out;
    if (isAnswer(out)) for (const [k, v] of Object.entries(out.headers)) trailers.set(`rest-header-${k.toLowerCase()}`, v);
    callback(null, { result: result ?? null }, trailers);
  } catch (err) {
    const se = err instanceof ServiceError ? err : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
    if (se.code === 'INTERNAL_ERROR') deps.log('internal error', { rpc, requestId, error: String((err as Error)?.stack ?? err) });
    callback(encodeServiceError(se, trailers) as never, null);
  }
}

/** A placeholder caller for operations whose input is its own credential. */
function anonymousCaller(requestId: string): Caller {
  return { requestId, keyId: '', keyType: 'organization_test', mode: 'test', platformId: '', organizationId: '', isPlatformKey: false, viaOrganizationHeader: false };
}

/**
 * Records a request made with Service-Organization-Id (CONTRACT part 7). Writes already recorded their own
 * event in their transaction; this adds one only when the request left none with its request id.
 */
async function auditHeaderUse(deps: GrpcServerDeps, caller: Caller, audit: { action: string; resourceType: string }, input: OperationInput) {
  const existing = await deps.db.query('SELECT 1 FROM audit_events WHERE request_id = $1 LIMIT 1', [caller.requestId]);
  if (existing.rowCount) return;
  await deps.db.transaction((tx) => appendAudit(tx, {
    platformId: caller.platformId, organizationId: caller.organizationId, actor: { keyId: caller.keyId, keyType: caller.keyType },
    action: audit.action, resourceType: audit.resourceType, resourceId: input.params.id ?? null, requestId: caller.requestId,
    before: null, after: null, timestamp: deps.clock(),
  }));
}
