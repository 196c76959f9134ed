/** Validation of ranking-policy create and update bodies (CONTRACT part 7, SPEC 4.5). */
import { TIE_BREAKERS, WEIGHT_KEYS } from './ranking-policy.js';

/** One problem of a policy body, in the shape of a 400 `details` entry. */
export interface PolicyProblem {
  field: string;
  code: 'VALIDATION_ERROR';
  message: string;
}

/** Longest policy name, in Unicode code points (CONTRACT part 1). */
export const POLICY_NAME_MAX = 200;

/** Largest weight accepted; keeps every score a finite, readable number. */
export const WEIGHT_MAX = 10_000;

// Hard constraints (and their v1 spellings) are filters, never weights: naming one gets its own explanation.
const HARD_CONSTRAINT_KEYS = new Set([
  'languageCodes',
  'modalityCodes',
  'licenseRegionCodes',
  'insurancePlanCodes',
  'insurance',
  'ageGroupCodes',
  'specialtyCodes',
  'professionCodes',
  'acceptsNewClients',
  'serviceRegionCodes',
  'language',
  'modality',
  'licenseRegion',
  'ageGroup',
  'specialty',
  'profession',
  'serviceRegion',
]);

/** Why a key of `weights` is refused when it is none of the six weight keys (a hard constraint gets its own words). */
export function notAWeightKey(key: string): string {
  return HARD_CONSTRAINT_KEYS.has(key)
    ? `${key} is a hard constraint, and hard constraints are never weights; put it in the resolution's constraints. Weight keys: ${WEIGHT_KEYS.join(', ')}`
    : `is not a weight key; use one of ${WEIGHT_KEYS.join(', ')}`;
}

/**
 * validatePolicyInput lists every problem of a policy body; an empty list means valid. With `partial` (PATCH)
 * absent fields are allowed; otherwise name, weights and tieBreakers are required. Weight keys a body leaves out
 * take the default policy's weights (see withDefaultWeights).
 */
export function validatePolicyInput(input: unknown, opts: { partial?: boolean } = {}): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, code: 'VALIDATION_ERROR', message });
  if (!isRecord(input)) {
    problem('(body)', 'must be an object with name, weights and tieBreakers');
    return problems;
  }
  const required = !opts.partial;

  const { name, weights, tieBreakers } = input;
  if (name === undefined || name === null) {
    if (required) problem('name', 'is required');
  } else if (typeof name !== 'string') problem('name', 'must be a string');
  else {
    const length = [...name].length;
    if (name.trim() === '') problem('name', 'must not be empty');
    else if (length > POLICY_NAME_MAX) problem('name', `must be at most ${POLICY_NAME_MAX} characters (got ${length})`);
  }

  if (weights === undefined || weights === null) {
    if (required) problem('weights', 'is required');
  } else if (!isRecord(weights)) problem('weights', `must be an object with keys among ${WEIGHT_KEYS.join(', ')}`);
  else {
    for (const [key, value] of Object.entries(weights)) {
      const field = `weights.${key}`;
      if (!(WEIGHT_KEYS as readonly string[]).includes(key)) {
        problem(field, notAWeightKey(key));
      } else if (typeof value !== 'number' || !Number.isFinite(value)) {
        problem(field, 'must be a finite number');
      } else if (value < 0) {
        problem(field, 'must not be negative');
      } else if (value > WEIGHT_MAX) {
        problem(field, `must be at most ${WEIGHT_MAX}`);
      }
    }
  }

  if (tieBreakers === undefined || tieBreakers === null) {
    if (required) problem('tieBreakers', 'is required');
  } else if (!Array.isArray(tieBreakers)) problem('tieBreakers', `must be an array of ${TIE_BREAKERS.join(', ')}`);
  else {
    const seen = new Set<unknown>();
    tieBreakers.forEach((tb: unknown, i) => {
      const field = `tieBreakers.${i}`;
      if (typeof tb !== 'string' || !(TIE_BREAKERS as readonly string[]).includes(tb)) {
        problem(field, `must be one of ${TIE_BREAKERS.join(', ')}`);
      } else if (seen.has(tb)) {
        problem(field, `${tb} is listed twice`);
      }
      seen.add(tb);
    });
  }
  return problems;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
