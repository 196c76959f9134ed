import type { LicenseRecord } from '../provider.js';

/**
 * The last date a provider's active licences cover, for paths that request no licence region (v1 slots and bookings):
 * the latest `expiresAt` of its `active` records. Undefined when it holds no active record (v1 ignores licences then)
 * or one has no end date. A slot on a later local date is not offered (CONTRACT part 8, applied without a region rule).
 */
export function activeLicenseValidThrough(records: readonly LicenseRecord[] | undefined): string | undefined {
  let latest: string | undefined;
  for (const r of records ?? []) {
    if (r.status !== 'active') continue;
    if (r.expiresAt === undefined) return undefined;
    if (latest === undefined || r.expiresAt > latest) latest = r.expiresAt;
  }
  return latest;
}
