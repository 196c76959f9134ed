import type { Client, ClientReadableStream, Metadata, ServiceError as GrpcError } from '@grpc/grpc-js';
import { decodeServiceError } from '../grpc/error-metadata.js';
import { RpcFailure, restHeaders } from './call-rpc.js';

/** A server-streaming RPC whose first message has arrived. */
export interface RpcStream {
  /** Response headers the server sent with its first message (`rest-header-*`: the RateLimit state). */
  headers: Record<string, string>;
  /** The first message, or undefined when the stream ended without any. */
  first: Record<string, unknown> | undefined;
  /** The following messages; throws RpcFailure when the stream fails, ends quietly once cancelled. */
  rest: AsyncIterable<Record<string, unknown>>;
}

/**
 * Calls a server-streaming RPC by name and waits for its first message, so a refusal (an error before any message)
 * rejects with RpcFailure exactly as a unary call does. `signal` cancels the call (the HTTP client went away).
 */
export async function openRpcStream(
  client: Client,
  rpc: string,
  request: unknown,
  metadata: Metadata,
  opts: { signal: AbortSignal },
): Promise<RpcStream> {
  const method = (client as unknown as Record<string, Function>)[rpc.charAt(0).toLowerCase() + rpc.slice(1)];
  if (!method) throw new Error(`unknown rpc ${rpc}`);
  const call = method.call(client, request, metadata) as ClientReadableStream<Record<string, unknown>>;
  let headers: Record<string, string> = {};
  call.once('metadata', (md: Metadata) => {
    headers = restHeaders(md);
  });
  const cancel = () => call.cancel();
  if (opts.signal.aborted) cancel();
  else opts.signal.addEventListener('abort', cancel, { once: true });
  const messages = call[Symbol.asyncIterator]() as AsyncIterator<Record<string, unknown>>;
  const next = async (): Promise<Record<string, unknown> | undefined> => {
    try {
      const r = await messages.next();
      return r.done ? undefined : r.value;
    } catch (err) {
      // Our own cancellation is the end of the stream, not a failure.
      if (opts.signal.aborted) return undefined;
      const e = err as GrpcError;
      throw new RpcFailure(decodeServiceError(e), restHeaders(e.metadata));
    }
  };
  const first = await next();
  return {
    headers,
    first,
    rest: {
      async *[Symbol.asyncIterator]() {
        try {
          for (let m = await next(); m !== undefined; m = await next()) yield m;
        } finally {
          opts.signal.removeEventListener('abort', cancel);
          call.cancel();
        }
      },
    },
  };
}
