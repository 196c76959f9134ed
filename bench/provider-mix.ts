import type { SeededRandom } from '../test/helpers/seeded-random.js';

/** The eight service regions and the timezone of each. */
export const REGION_TIMEZONES: Readonly<Record<string, string>> = {
  'US-CA': 'America/Los_Angeles',
  'US-WA': 'America/Los_Angeles',
  'US-CO': 'America/Denver',
  'US-TX': 'America/Chicago',
  'US-IL': 'America/Chicago',
  'US-NY': 'America/New_York',
  'US-FL': 'America/New_York',
  'US-MA': 'America/New_York',
};

/** Region codes of the mix. */
export const REGIONS = Object.keys(REGION_TIMEZONES);
/** Language codes of the mix with the share of providers speaking each. */
export const LANGUAGE_SHARES: readonly (readonly [string, number])[] = [
  ['en', 0.85],
  ['es', 0.3],
  ['zh', 0.1],
  ['vi', 0.08],
  ['ko', 0.07],
];
/** Insurance plans of the mix with the share of providers accepting each. */
export const INSURER_SHARES: readonly (readonly [string, number])[] = [
  ['bcbs', 0.55],
  ['uhc', 0.45],
  ['cigna', 0.35],
  ['aetna', 0.35],
  ['humana', 0.2],
  ['self_pay', 0.7],
];
const PROFESSIONS = ['psychologist', 'lcsw', 'lpc', 'lmft', 'psychiatrist'];
const SPECIALTIES = [
  'anxiety',
  'depression',
  'trauma',
  'couples',
  'adhd',
  'substance_use',
  'grief',
  'eating_disorders',
];
const FIRST = [
  'Alex',
  'Maria',
  'Wei',
  'Linh',
  'Ji-woo',
  'Sam',
  'Jordan',
  'Priya',
  'Carlos',
  'Ana',
  'Grace',
  'Omar',
  'Noah',
  'Emma',
  'Lucas',
];
const LAST = [
  'Garcia',
  'Nguyen',
  'Chen',
  'Kim',
  'Smith',
  'Johnson',
  'Lopez',
  'Patel',
  'Brown',
  'Davis',
  'Martinez',
  'Lee',
  'Wilson',
  'Clark',
];
const DAY_MS = 86_400_000;

/** A weekly schedule as POST /api/v2/calendar-connections takes it. */
export type WeeklyDays = Record<string, { enabled: boolean; slots: { start: string; end: string }[] }>;

/** One generated provider: the import row plus what the bench needs to know about it. */
export interface GeneratedProvider {
  externalId: string;
  row: Record<string, unknown>;
  timezone: string;
  days: WeeklyDays;
  serviceModality: 'virtual' | 'in-person' | 'both';
}

/** Picks each item with its own probability, keeping at least one. */
function shares(rnd: SeededRandom, list: readonly (readonly [string, number])[]): string[] {
  const out = list.filter(([, p]) => rnd.chance(p)).map(([c]) => c);
  return out.length ? out : [list[0]![0]];
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A weekly pattern of 5 to 7 working days (Monday to Friday always open). */
function weeklyDays(rnd: SeededRandom): WeeklyDays {
  const patterns = [
    [{ start: '09:00', end: '17:00' }],
    [
      { start: '08:00', end: '12:00' },
      { start: '13:00', end: '17:00' },
    ],
    [{ start: '10:00', end: '18:30' }],
    [{ start: '12:00', end: '20:00' }],
  ];
  const weekday = rnd.pick(patterns);
  const n = rnd.pick([5, 5, 6, 7]);
  const days: WeeklyDays = {};
  for (const d of ['monday', 'tuesday', 'wednesday', 'thursday', 'friday']) days[d] = { enabled: true, slots: weekday };
  days.saturday = n >= 6 ? { enabled: true, slots: [{ start: '10:00', end: '14:00' }] } : { enabled: false, slots: [] };
  days.sunday = n >= 7 ? { enabled: true, slots: [{ start: '11:00', end: '15:00' }] } : { enabled: false, slots: [] };
  return days;
}

/**
 * Generates `count` providers with a realistic mix: 5 languages, 8 regions in 4 timezones, 6 insurers,
 * professions, specialties, age groups, modalities, licenses (about 8% expiring within 30 days, 5% never
 * verified), mostly accepting new clients, a panel capacity on some, and a little missing insurance data.
 */
export function generateProviders(rnd: SeededRandom, count: number, nowMs: number): GeneratedProvider[] {
  const out: GeneratedProvider[] = [];
  for (let i = 0; i < count; i++) {
    const externalId = `bench-${String(i).padStart(5, '0')}`;
    const primary = rnd.pick(REGIONS);
    const regions = rnd.chance(0.3) ? [...new Set([primary, rnd.pick(REGIONS)])] : [primary];
    const profession = rnd.pick(PROFESSIONS);
    const virtual = rnd.chance(0.85);
    const inPerson = !virtual || rnd.chance(0.5);
    const modalities = [...(virtual ? ['virtual'] : []), ...(inPerson ? ['in_person'] : [])];
    const ageGroups = ['adult', 'adolescent', 'child', 'senior'].filter((a) =>
      rnd.chance(a === 'adult' ? 0.95 : a === 'adolescent' ? 0.35 : a === 'child' ? 0.15 : 0.25),
    );
    const licenses = regions.map((regionCode) => {
      const expiring = rnd.chance(0.08);
      const expiresAt = ymd(nowMs + (expiring ? rnd.int(1, 29) : rnd.int(60, 900)) * DAY_MS);
      const verifiedAt = rnd.chance(0.05) ? undefined : new Date(nowMs - rnd.int(5, 330) * DAY_MS).toISOString();
      return {
        licenseTypeCode: profession,
        regionCode,
        status: 'active',
        expiresAt,
        ...(verifiedAt ? { verifiedAt } : {}),
      };
    });
    const accepts = rnd.next();
    const row: Record<string, unknown> = {
      externalId,
      displayName: `Dr. ${rnd.pick(FIRST)} ${rnd.pick(LAST)} ${i}`,
      email: `provider-${i}@example.org`,
      professionCode: profession,
      specialtyCodes: rnd.sample(SPECIALTIES, rnd.int(1, 3)),
      languageCodes: shares(rnd, LANGUAGE_SHARES),
      modalityCodes: modalities,
      serviceRegionCodes: regions,
      ageGroupCodes: ageGroups.length ? ageGroups : ['adult'],
      licenseRecords: licenses,
      timezone: REGION_TIMEZONES[primary],
      location: primary,
      ...(accepts < 0.9 ? { acceptsNewClients: true } : accepts < 0.98 ? { acceptsNewClients: false } : {}),
      // About 2% have no insurance data at all (unknown -> manual review when insurance is asked for).
      ...(rnd.chance(0.98) ? { insurancePlanCodes: shares(rnd, INSURER_SHARES) } : {}),
    };
    if (rnd.chance(0.2)) {
      const cap = rnd.int(25, 40);
      row.panelCapacity = cap;
      row.panelCurrentCount = rnd.int(0, cap);
    }
    out.push({
      externalId,
      row,
      timezone: REGION_TIMEZONES[primary]!,
      days: weeklyDays(rnd),
      serviceModality: virtual && inPerson ? 'both' : virtual ? 'virtual' : 'in-person',
    });
  }
  return out;
}
