import type { CompiledEligibilityRequest } from './eligibility-request.js';
import type { EligibilityWarning, LicenseExpiry } from './provider-eligibility.js';

/**
 * The `detail` of a LICENSE_EXPIRED exclusion (CONTRACT part 8): the expiry date, and whether it passed before today
 * or falls before the request's first date.
 */
export function licenseExpiredDetail(expiry: LicenseExpiry, c: Pick<CompiledEligibilityRequest, 'today'>): string {
  return expiry.expiresAt < c.today
    ? `The license for ${expiry.regionCode} expired on ${expiry.expiresAt}.`
    : `The license for ${expiry.regionCode} expires on ${expiry.expiresAt}, before the requested dates.`;
}

/** The `detail` of LICENSE_EXPIRED for a provider whose matching license ends inside the range before any free slot. */
export function licenseEndsBeforeFreeSlotDetail(expiresAt: string): string {
  return `The license expires on ${expiresAt}; no free slot of the requested dates falls on or before it.`;
}

/** LICENSE_EXPIRING_SOON for a provider's slot: its license ends within 30 days of that slot's date. */
export function licenseExpiringSoonWarning(
  providerId: string,
  expiry: LicenseExpiry,
  field: string,
): EligibilityWarning {
  return {
    code: 'LICENSE_EXPIRING_SOON',
    message: `The license for ${expiry.regionCode} expires on ${expiry.expiresAt}, within 30 days of the slot; renew and re-verify it.`,
    providerId,
    field,
  };
}
