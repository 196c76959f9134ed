import type { StepCause } from '../persistence/actor-store.js';
import type { Caller } from './caller.js';

/** The service itself caused the step (a durable timer, a repair). */
export const SYSTEM_CAUSE: StepCause = { type: 'system' };

/**
 * Who caused an actor step made for `caller`: its key and request, or `system` with the request id when the call
 * carried no key (a confirmation link, whose token is the credential).
 */
export function stepCause(caller: Caller): StepCause {
  return caller.keyId === ''
    ? { type: 'system', requestId: caller.requestId }
    : { type: 'key', keyId: caller.keyId, keyType: caller.keyType, requestId: caller.requestId };
}
