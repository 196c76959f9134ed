import { DayPart, type ResolutionConstraints, type ResolutionPreferences } from '../../gen/scheduling/v1/resources.js';

/** The constraint lists of a resolution's constraints, in the contract's order. */
const CONSTRAINT_LISTS = [
  'languageCodes',
  'modalityCodes',
  'licenseRegionCodes',
  'insurancePlanCodes',
  'ageGroupCodes',
  'specialtyCodes',
  'professionCodes',
  'serviceRegionCodes',
] as const;

/**
 * The hard constraints a request gives, in their REST spelling (`{languageCodes: {anyOf: [...]}}`, each list given
 * when its message is set), for the contract's rule of `constraints` to judge and normalize; unset: not given.
 */
export function constraintsGiven(c: ResolutionConstraints | undefined): Record<string, unknown> | undefined {
  if (!c) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of CONSTRAINT_LISTS) {
    const list = c[key];
    if (list) out[key] = { anyOf: list.anyOf ?? [] };
  }
  if (c.acceptsNewClients !== undefined) out.acceptsNewClients = c.acceptsNewClients;
  return out;
}

/** A day part by REST value; UNSPECIFIED (or one unknown) is judged as what it is. */
const DAY_PART_OF: Partial<Record<DayPart, string>> = {
  [DayPart.DAY_PART_MORNING]: 'morning',
  [DayPart.DAY_PART_AFTERNOON]: 'afternoon',
  [DayPart.DAY_PART_EVENING]: 'evening',
};

/**
 * The ranking preferences a request gives, in their REST spelling, for the contract's rule of `preferences` to judge
 * and normalize; a list has no presence, so an empty one is not given. Unset: not given.
 */
export function preferencesGiven(p: ResolutionPreferences | undefined): Record<string, unknown> | undefined {
  if (!p) return undefined;
  const out: Record<string, unknown> = {};
  if (p.preferredDayParts?.length) out.dayParts = p.preferredDayParts.map((d) => DAY_PART_OF[d] ?? d);
  if (p.earliestAvailable !== undefined) out.earliestAvailable = p.earliestAvailable;
  if (p.languageCodes?.length) out.languageCodes = p.languageCodes;
  if (p.location !== undefined) out.location = p.location;
  if (p.specialtyCodes?.length) out.specialtyCodes = p.specialtyCodes;
  if (p.clientRef !== undefined) out.clientRef = p.clientRef;
  if (p.timezone !== undefined) out.timezone = p.timezone;
  return out;
}
