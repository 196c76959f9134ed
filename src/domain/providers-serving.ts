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
 * Counts, for every value of `dimension` some active, searchable provider has (`today`: YYYY-MM-DD, the date a
 * licence's expiry is judged against), those providers and those of them accepting new clients (CONTRACT part 8).
 * A value no such provider has is absent (it counts 0 of both).
 */
export function countProvidersServing(
  providers: readonly Provider[],
  dimension: string,
  today: string,
): Map<string, ServingCount> {
  const counts = new Map<string, ServingCount>();
  for (const p of providers) {
    if (p.status !== 'active' || !p.searchable) continue;
    const accepting = p.acceptsNewClients === true;
    const values = valuesOf(p, dimension, today);
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      // A value listed twice by one provider counts it once.
      if (values.indexOf(v) !== i) continue;
      let c = counts.get(v);
      if (!c) counts.set(v, (c = { providers: 0, acceptingNewClients: 0 }));
      c.providers += 1;
      if (accepting) c.acceptingNewClients += 1;
    }
  }
  return counts;
}
