import { newId } from '../../persistence/new-id.js';
import type { StoredWaitlistEntry } from '../../persistence/waitlist-repository.js';
import type { Caller } from '../caller.js';

/**
 * The caller the service acts as for a waitlist entry (offers, lapses, bookings it follows): no key (steps and audit
 * entries are the system's), the entry's organization and the mode of the key that created it, so test-mode entries
 * get test-mode events.
 */
export function waitlistCaller(stored: StoredWaitlistEntry, now: Date): Caller {
  const mode = stored.doc.mode ?? 'live';
  return {
    requestId: newId('req', now.getTime()),
    keyId: '',
    keyType: mode === 'test' ? 'organization_test' : 'organization_live',
    mode,
    platformId: stored.platformId,
    organizationId: stored.organizationId,
    isPlatformKey: false,
    viaOrganizationHeader: false,
  };
}
