import { Metadata } from '@grpc/grpc-js';
import type { ServiceError } from '../errors/service-error.js';
import { setHeaderMetadata } from '../grpc/header-metadata.js';
import { RpcFailure } from './call-rpc.js';
import type { RpcCaller } from './rpc-caller.js';

/** What the gateway answers for a refusal of its own: the error and the response headers (RateLimit-*). */
export interface Refusal {
  error: ServiceError;
  headers: Record<string, string>;
}

/**
 * Sends a refusal the gateway made itself (no route, malformed JSON, body over 1 MB) to GatewayService/Refuse, so
 * that the internal API authenticates the key and counts the request as it does every call (CONTRACT part 1:
 * RateLimit headers on every answer to a valid key). The refusal stands with whatever RateLimit headers came back,
 * unless the key is over its limit (then 429 `RATE_LIMITED`). An invalid key, a refused organization or an API that
 * does not answer leave the refusal as it was.
 */
export async function refuseThroughApi(
  call: RpcCaller,
  refusal: ServiceError,
  credentials: Record<string, string>,
  opts: { requestId: string; deadlineMs: number },
): Promise<Refusal> {
  const md = new Metadata();
  md.set('x-service-request-id', opts.requestId);
  md.set('x-service-door', 'rest');
  for (const [k, v] of Object.entries(credentials)) setHeaderMetadata(md, k, v);
  try {
    await call(
      'GatewayService',
      'Refuse',
      { code: refusal.code, message: refusal.message.slice(0, 1000), field: refusal.field ?? '' },
      md,
      { deadlineMs: opts.deadlineMs },
    );
  } catch (err) {
    if (err instanceof RpcFailure)
      return { error: err.error.code === 'RATE_LIMITED' ? err.error : refusal, headers: err.headers };
  }
  return { error: refusal, headers: {} };
}
