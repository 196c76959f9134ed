/** A one-sentence explanation of an option that a receptionist can read aloud (SPEC part 2, Option.reason). */
import { dayPartOfMinute } from './day-part.js';
import { insurerName } from './insurer-name.js';
import { languageName } from './language-name.js';
import { sharedMinuteOfDayReader } from './local-minute-of-day.js';
import type { RankedOption, RankingPreferences, RankingProvider } from './rank-options.js';
import { spokenSlotTime } from './spoken-slot-time.js';

/** The part of a matched constraint the sentence uses; values are normalized codes. */
export interface ReasonConstraint {
  code: string;
  required?: readonly unknown[] | undefined;
  actual?: readonly unknown[] | undefined;
  /** The provider's values that met the constraint, when known (eligibility sets it). */
  met?: readonly unknown[] | undefined;
}

/** Attribute clauses a sentence holds at most before the opening, so it stays short enough to say. */
export const MAX_REASON_CLAUSES = 4;

const AGE_GROUPS: Readonly<Record<string, string>> = {
  adult: 'adults',
  adolescent: 'adolescents',
  child: 'children',
  senior: 'seniors',
};
const MODALITIES: Readonly<Record<string, string>> = { virtual: 'virtual', in_person: 'in-person' };

/**
 * optionReason explains an option, e.g. "Dr. Ana Ruiz speaks Spanish, accepts UnitedHealthcare and has the earliest
 * opening on Tue 3 Mar at 9:00 AM (America/New_York)." Clauses come in a fixed order (language, insurance, continuity,
 * specialty, location, modality, new clients, license, age group, service region), at most
 * MAX_REASON_CLAUSES of them, then the opening; the time is told in preferences.timezone, else the slot's.
 */
export function optionReason(
  option: Pick<RankedOption, 'slot' | 'rankingFactors' | 'isEarliestOpening'>,
  provider: Pick<RankingProvider, 'displayName' | 'languageCodes' | 'specialtyCodes' | 'location' | 'timezone'>,
  matchedConstraints: readonly ReasonConstraint[],
  preferences: RankingPreferences,
): string {
  const hasFactor = (code: string) => option.rankingFactors.some((f) => f.code === code && f.points > 0);
  const matched = (code: string): string[] | undefined => {
    const c = matchedConstraints.find((m) => m.code === code);
    return c ? matchedValues(c) : undefined;
  };
  const clauses: string[] = [];
  const add = (values: string[] | undefined, render: (vs: string[]) => string) => {
    if (values && values.length > 0) clauses.push(render(values));
  };

  const languages =
    matched('LANGUAGE_MATCH') ??
    (hasFactor('PREFERRED_LANGUAGE') ? intersect(provider.languageCodes, preferences.languageCodes) : undefined);
  add(languages, (vs) => `speaks ${joinAnd(vs.map(languageName))}`);
  add(matched('INSURANCE_MATCH'), (vs) => `accepts ${joinAnd(vs.map(insurerName))}`);
  if (hasFactor('PROVIDER_CONTINUITY')) clauses.push('has seen this client before');
  const specialties =
    matched('SPECIALTY_MATCH') ??
    (hasFactor('PREFERRED_SPECIALTY') ? intersect(provider.specialtyCodes, preferences.specialtyCodes) : undefined);
  add(specialties, (vs) => `specializes in ${joinAnd(vs.map(words))}`);
  if (hasFactor('PREFERRED_LOCATION') && provider.location) clauses.push(`is located in ${provider.location}`);
  add(matched('MODALITY_MATCH'), (vs) => `offers ${joinAnd(vs.map((v) => MODALITIES[v] ?? words(v)))} visits`);
  if (matchedConstraints.some((m) => m.code === 'ACCEPTS_NEW_CLIENTS_MATCH')) clauses.push('is accepting new clients');
  add(matched('LICENSE_REGION_MATCH'), (vs) => `is licensed in ${joinAnd(vs.map((v) => v.toUpperCase()))}`);
  add(matched('AGE_GROUP_MATCH'), (vs) => `sees ${joinAnd(vs.map((v) => AGE_GROUPS[v] ?? words(v)))}`);
  add(matched('SERVICE_REGION_MATCH'), (vs) => `serves ${joinAnd(vs.map((v) => v.toUpperCase()))}`);

  const when = spokenSlotTime(option.slot.start, [preferences.timezone, option.slot.timezone, provider.timezone]);
  let opening: string;
  if (option.isEarliestOpening) opening = `has the earliest opening on ${when}`;
  else if (hasFactor('PREFERRED_DAY_PART')) {
    const minute = readDayPartMinute(option.slot.start, [
      preferences.timezone,
      option.slot.timezone,
      provider.timezone,
    ]);
    const part = minute === undefined ? undefined : dayPartOfMinute(minute);
    opening = part ? `has ${article(part)} ${part} opening on ${when}` : `has an opening on ${when}`;
  } else opening = `has an opening on ${when}`;

  return `${provider.displayName} ${joinAnd([...clauses.slice(0, MAX_REASON_CLAUSES), opening])}.`;
}

function readDayPartMinute(epochMs: number, timeZones: readonly (string | undefined)[]): number | undefined {
  const read = sharedMinuteOfDayReader;
  for (const tz of timeZones) {
    if (tz === undefined || tz === '') continue;
    const m = read(epochMs, tz);
    if (m !== undefined) return m;
  }
  return read(epochMs, 'UTC');
}

// The values that met the constraint; without them, those both sides share, else what the provider has.
function matchedValues(c: ReasonConstraint): string[] {
  if (c.met !== undefined && c.met.length > 0) return unique(c.met.filter((v): v is string => typeof v === 'string'));
  const actual = (c.actual ?? []).filter((v): v is string => typeof v === 'string');
  const required = (c.required ?? []).filter((v): v is string => typeof v === 'string');
  const both = actual.filter((v) => required.includes(v));
  return unique(both.length > 0 ? both : actual.length > 0 ? actual : required);
}

function intersect(have: readonly string[], wanted: readonly string[] | undefined): string[] {
  const w = new Set((wanted ?? []).map((v) => v.toLowerCase()));
  return unique(have.filter((v) => w.has(v.toLowerCase())));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function words(code: string): string {
  return code.replace(/[_-]+/g, ' ').trim();
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

function joinAnd(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
