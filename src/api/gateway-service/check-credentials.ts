import type { CheckCredentialsRequest, CheckCredentialsResponse } from '../../gen/scheduling/v1/gateway_service.js';
import type { Caller } from '../../application/caller.js';

/** What CheckCredentials uses: nothing (the server authenticated the key before it runs). */
export type CheckCredentialsDeps = Record<never, never>;

/**
 * CheckCredentials: succeeds once the server authenticated the key, uncounted (the request's own call that follows is
 * counted): the gateway reads a request's body only then.
 */
export async function checkCredentials(
  _deps: CheckCredentialsDeps,
  _caller: Caller,
  _request: CheckCredentialsRequest,
): Promise<CheckCredentialsResponse> {
  return {};
}
