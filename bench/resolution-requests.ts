import { LANGUAGE_SHARES, INSURER_SHARES, REGIONS } from './provider-mix.js';
import { addDays } from './bench-dates.js';
import type { SeededRandom } from './seeded-random.js';

/** Options for building a resolution request body. */
export interface ResolutionRequestOptions {
  serviceIds: readonly string[];
  /** First date of the window. */
  from: string;
  /** Window length in days (1..14). */
  days: number;
  /** Window start shifted by up to this many days (spreads short windows over the fortnight). */
  spreadDays?: number;
  maxOptionsPerProvider?: number;
}

/** Languages weighted the way requests ask for them (mostly English or Spanish). */
const REQUESTED_LANGUAGES = ['en', 'en', 'en', 'en', 'es', 'es', 'zh', 'vi', 'ko'];

/**
 * A typical POST /api/v2/resolutions body: languageCodes anyOf 1-2, insurancePlanCodes anyOf 1,
 * serviceRegionCodes anyOf 1, a modality, sometimes a day-part preference.
 */
export function typicalResolutionBody(rnd: SeededRandom, o: ResolutionRequestOptions): Record<string, unknown> {
  const languages = [...new Set(rnd.chance(0.3) ? [rnd.pick(REQUESTED_LANGUAGES), rnd.pick(LANGUAGE_SHARES.map(([c]) => c))] : [rnd.pick(REQUESTED_LANGUAGES)])];
  const from = addDays(o.from, o.spreadDays ? rnd.int(0, o.spreadDays) : 0);
  return {
    serviceId: rnd.pick(o.serviceIds),
    constraints: {
      languageCodes: { anyOf: languages },
      insurancePlanCodes: { anyOf: [rnd.pick(INSURER_SHARES.map(([c]) => c))] },
      serviceRegionCodes: { anyOf: [rnd.pick(REGIONS)] },
      modalityCodes: { anyOf: [rnd.chance(0.7) ? 'virtual' : 'in_person'] },
    },
    ...(rnd.chance(0.4) ? { preferences: { dayParts: [rnd.pick(['morning', 'afternoon', 'evening'])] } } : {}),
    dateRange: { from, to: addDays(from, o.days) },
    ...(o.maxOptionsPerProvider ? { maxOptionsPerProvider: o.maxOptionsPerProvider } : {}),
  };
}
