import { LANGUAGE_SHARES, INSURER_SHARES, REGIONS } from './provider-mix.js';
import { addDays } from './bench-dates.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

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

/** A family of constraints asked by a kind of caller, and the share of providers it leaves eligible. */
export interface ConstraintMix {
  id: 'mix1' | 'mix3' | 'mix10' | 'clinic';
  /** What the callers ask, as printed. */
  label: string;
  /** Mean share of the bench organization's providers eligible, by design (the run prints the achieved one). */
  designedShare: number;
  constraints(rnd: SeededRandom): Record<string, unknown>;
}

/** Languages weighted the way narrow requests ask for them (mostly English or Spanish). */
const REQUESTED_LANGUAGES = ['en', 'en', 'en', 'en', 'es', 'es', 'zh', 'vi', 'ko'];
const INSURERS = INSURER_SHARES.map(([c]) => c);

/** 1-2 languages, one insurer, one region and one modality: about 2.8% of provider-mix.ts' providers. */
function narrowConstraints(rnd: SeededRandom): Record<string, unknown> {
  const languages = [
    ...new Set(
      rnd.chance(0.3)
        ? [rnd.pick(REQUESTED_LANGUAGES), rnd.pick(LANGUAGE_SHARES.map(([c]) => c))]
        : [rnd.pick(REQUESTED_LANGUAGES)],
    ),
  ];
  return {
    languageCodes: { anyOf: languages },
    insurancePlanCodes: { anyOf: [rnd.pick(INSURERS)] },
    serviceRegionCodes: { anyOf: [rnd.pick(REGIONS)] },
    modalityCodes: { anyOf: [rnd.chance(0.7) ? 'virtual' : 'in_person'] },
  };
}

/**
 * The three constraint mixes, designed against provider-mix.ts' distribution (regions ~16% each with 30% serving
 * a second one; English 93%, Spanish 30%; insurers 20-70%; adolescents 35%).
 */
export const CONSTRAINT_MIXES: Readonly<Record<Exclude<ConstraintMix['id'], 'clinic'>, ConstraintMix>> = {
  mix1: {
    id: 'mix1',
    label: '~1%: narrow + age group adolescent',
    designedShare: 0.01,
    constraints: (rnd) => ({ ...narrowConstraints(rnd), ageGroupCodes: { anyOf: ['adolescent'] } }),
  },
  mix3: {
    id: 'mix3',
    label: '~3%: 1-2 languages, 1 insurer, 1 region, 1 modality',
    designedShare: 0.028,
    constraints: narrowConstraints,
  },
  mix10: {
    id: 'mix10',
    label: '~10%: 1 language, 1 insurer, 2 regions',
    designedShare: 0.1,
    // Clinics ask broad questions: English three times in four, else Spanish; any insurer; two regions.
    constraints: (rnd) => ({
      languageCodes: { anyOf: [rnd.chance(0.75) ? 'en' : 'es'] },
      insurancePlanCodes: { anyOf: [rnd.pick(INSURERS)] },
      serviceRegionCodes: { anyOf: rnd.sample(REGIONS, 2) },
    }),
  },
};

/**
 * The broad clinic question of issue 22: English, BCBS and a license in California or New York over 14 days. On
 * provider-mix.ts' providers about 10% match and about 29% are unknown (no license in either state: LICENSE_MISSING),
 * so each resolution has thousands of providers for manual review. Not one of CONSTRAINT_MIXES (`npm run bench` keeps
 * its mixes); `QUICK_MIX=clinic npm run bench:quick` runs it.
 */
export const CLINIC_MIX: ConstraintMix = {
  id: 'clinic',
  label: 'clinic: en + bcbs + license US-CA or US-NY',
  designedShare: 0.1,
  constraints: () => ({
    languageCodes: { anyOf: ['en'] },
    insurancePlanCodes: { anyOf: ['bcbs'] },
    licenseRegionCodes: { anyOf: ['US-CA', 'US-NY'] },
  }),
};

/** A POST /api/v2/resolutions body of a mix: its constraints, sometimes a day-part preference, a window. */
export function resolutionBody(
  mix: ConstraintMix,
  rnd: SeededRandom,
  o: ResolutionRequestOptions,
): Record<string, unknown> {
  const constraints = mix.constraints(rnd);
  const from = addDays(o.from, o.spreadDays ? rnd.int(0, o.spreadDays) : 0);
  return {
    serviceId: rnd.pick(o.serviceIds),
    constraints,
    ...(rnd.chance(0.4) ? { preferences: { dayParts: [rnd.pick(['morning', 'afternoon', 'evening'])] } } : {}),
    dateRange: { from, to: addDays(from, o.days) },
    ...(o.maxOptionsPerProvider ? { maxOptionsPerProvider: o.maxOptionsPerProvider } : {}),
  };
}
