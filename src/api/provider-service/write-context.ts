import type { Caller } from '../../application/caller.js';
import type { WriteContext } from '../../application/provider-writer.js';

/** Where a provider write of the caller happens: its tenant, its key's mode, and now. */
export function writeContextOf(caller: Caller, now: Date): WriteContext {
  return { platformId: caller.platformId, organizationId: caller.organizationId, mode: caller.mode, now };
}
