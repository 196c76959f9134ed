import { Metadata, type Client, type ServiceError as GrpcError, type StatusObject } from '@grpc/grpc-js';
import { decodeServiceError } from '../grpc/error-metadata.js';

/** The outcome of one unary RPC: the response message and the response headers carried in trailers. */
export interface RpcOutcome {
  response: Record<string, unknown>;
  headers: Record<string, string>;
}

/** The outcome of a failed RPC: the decoded contract error and any headers (rate limit) carried in trailers. */
export class RpcFailure extends Error {
  constructor(
    readonly error: ReturnType<typeof decodeServiceError>,
    readonly headers: Record<string, string>,
  ) {
    super(error.message);
  }
}

/** Picks `rest-header-*` trailers (or response headers) as REST response headers. */
export function restHeaders(md: Metadata | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!md) return out;
  for (const [k, v] of Object.entries(md.getMap())) {
    if (k.startsWith('rest-header-')) out[k.slice('rest-header-'.length)] = String(v);
  }
  return out;
}

/**
 * Calls a unary RPC by name on a generated client and waits for both the answer and the trailers.
 * `signal` cancels the call when the HTTP client goes away.
 */
export function callRpc(
  client: Client,
  rpc: string,
  request: unknown,
  metadata: Metadata,
  opts: { deadlineMs: number; signal?: AbortSignal },
): Promise<RpcOutcome> {
  const method = (client as unknown as Record<string, Function>)[rpc.charAt(0).toLowerCase() + rpc.slice(1)];
  if (!method) return Promise.reject(new Error(`unknown rpc ${rpc}`));
  return new Promise((resolve, reject) => {
    let response: RpcOutcome['response'] | undefined;
    let status: StatusObject | undefined;
    let failure: GrpcError | undefined;
    const settle = () => {
      if (failure) return reject(new RpcFailure(decodeServiceError(failure), restHeaders(failure.metadata)));
      if (response !== undefined && status !== undefined) resolve({ response, headers: restHeaders(status.metadata) });
    };
    const call = method.call(
      client,
      request,
      metadata,
      { deadline: Date.now() + opts.deadlineMs },
      (err: GrpcError | null, res: RpcOutcome['response']) => {
        if (err) failure = err;
        else response = res;
        settle();
      },
    );
    call.on('status', (s: StatusObject) => {
      status = s;
      settle();
    });
    opts.signal?.addEventListener('abort', () => call.cancel(), { once: true });
  });
}
