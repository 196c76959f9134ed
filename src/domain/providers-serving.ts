import type { Provider } from './provider.js';

/** The providers that have a value of a network-adequacy dimension, and of them those accepting new clients. */
export interface ServingCount {
  providers: number;
  acceptingNewClients: number;
}

/** A provider's values of a dimension; a licence region counts while its licence is active and not expired `today`. */
function valuesOf(p: Provider, dimension: string, today: string): readonly string[] {
  switch (dimension) {
    case 'language':
      return p.languageCodes;
    case 'insurance':
      return p.insurancePlanCodes;
    case 'specialty':
      return p.specialtyCodes;
    case 'modality':
      return p.modalityCodes;
    case 'license_region':
      return p.licenseRecords
        .filter((l) => l.status === 'active' && (l.expiresAt === undefined || l.expiresAt >= today))
        .map((l) => l.regionCode);
    default:
      return [];
  }
}

/**
 * Counts, for each of `values`, the active, searchable providers that have it in `dimension` (`today`: YYYY-MM-DD, the
 * date a licence's expiry is judged against), and those of them accepting new clients (CONTRACT part 8).
 */
export function countProvidersServing(
  providers: readonly Provider[],
  dimension: string,
  values: readonly string[],
  today: string,
): Map<string, ServingCount> {
  const counts = new Map<string, ServingCount>(values.map((v) => [v, { providers: 0, acceptingNewClients: 0 }]));
  for (const p of providers) {
    if (p.status !== 'active' || !p.searchable) continue;
    for (const v of new Set(valuesOf(p, dimension, today))) {
      const c = counts.get(v);
      if (!c) continue;
      c.providers += 1;
      if (p.acceptsNewClients === true) c.acceptingNewClients += 1;
    }
  }
  return counts;
}
