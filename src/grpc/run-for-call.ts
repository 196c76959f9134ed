import { ServiceError } from '../errors/service-error.js';
import { runInCallScope } from '../persistence/call-scope.js';
import { translateDatabaseError } from '../persistence/database.js';
import { translateRedisError } from '../persistence/redis-client.js';

/** What runForCall reads of a grpc-js server call. */
export interface CallLifetime {
  getDeadline(): Date | number;
  once(event: 'cancelled', listener: () => void): unknown;
  off(event: 'cancelled', listener: () => void): unknown;
}

/**
 * Runs an operation for a gRPC call: the store clients see the call's deadline and cancellation (a transaction of a
 * call that is gone or out of time does not commit; see `call-scope.ts`), and a store that is down or did not answer
 * in time — wherever the operation reached it — comes out as 503 SERVICE_UNAVAILABLE with Retry-After, never a 500.
 */
export async function runForCall<T>(call: CallLifetime, run: () => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onCancelled = () => abort.abort();
  call.once('cancelled', onCancelled);
  const d = call.getDeadline();
  try {
    return await runInCallScope({ deadline: d instanceof Date ? d.getTime() : d, signal: abort.signal }, run);
  } catch (err) {
    throw err instanceof ServiceError ? err : translateRedisError(translateDatabaseError(err));
  } finally {
    call.off('cancelled', onCancelled);
  }
}
