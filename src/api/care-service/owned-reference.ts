import { ServiceError } from '../../errors/service-error.js';
import type { Caller } from '../../application/caller.js';

/**
 * Checks that an id a request names is a record of the caller's organization (`organizationId`: its organization, or
 * undefined when there is no such record): 404 `notFound` when unknown, 403 FORBIDDEN when another's, with `field`.
 */
export function ensureOwned(
  organizationId: string | undefined,
  caller: Caller,
  notFound: 'SERVICE_NOT_FOUND' | 'RESOLUTION_NOT_FOUND' | 'PROVIDER_NOT_FOUND',
  field: string,
): void {
  if (organizationId === undefined) throw new ServiceError(notFound, undefined, { field });
  if (organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN', undefined, { field });
}
