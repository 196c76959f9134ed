/**
 * Normalization of the provider graph's codes (CONTRACT part 3), applied on write and on query.
 *
 * Every normalizer takes raw input and returns a {@link NormalizeResult}: `{ok: true, value}` with the
 * canonical code, or `{ok: false, message}` telling the caller what a valid value looks like. They never throw.
 */

/** Outcome of normalizing one raw value. */
export type NormalizeResult = { ok: true; value: string } | { ok: false; message: string };

/** Outcome of normalizing a list: the deduplicated values, or the index of the first invalid element. */
export type NormalizeListResult = { ok: true; value: string[] } | { ok: false; index: number; message: string };

/** A function normalizing one raw value. */
export type CodeNormalizer = (raw: unknown) => NormalizeResult;

/** Age group codes accepted by the service. */
export const AGE_GROUP_CODES: readonly string[] = ['adult', 'adolescent', 'child', 'senior'];

/** Modality codes accepted by the service. */
export const MODALITY_CODES: readonly string[] = ['virtual', 'in_person'];

// ISO 639-1 two-letter language codes.
const ISO_639_1 = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo ' +
    'es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka ' +
    'kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng ' +
    'nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su ' +
    'sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
  ).split(' '),
);

// Withdrawn ISO 639-1 codes still sent by older systems (Java locales, for one).
const LEGACY_LANGUAGE_CODES: Record<string, string> = { iw: 'he', in: 'id', ji: 'yi' };

const CODE_PATTERN = /^[a-z0-9_]{1,64}$/;
const REGION_PATTERN = /^[A-Z]{2}(?:-[A-Z0-9]{1,3})?$/;

const ok = (value: string): NormalizeResult => ({ ok: true, value });
const invalid = (message: string): NormalizeResult => ({ ok: false, message });

/** Normalizes a language tag to its lower-case ISO 639-1 code (`ES`, `es-MX` -> `es`). */
export function normalizeLanguageCode(raw: unknown): NormalizeResult {
  const message = 'must be an ISO 639-1 language code such as "en" or "es-MX"';
  if (typeof raw !== 'string') return invalid(message);
  // The primary subtag is the language; region and script subtags are dropped.
  const primary = raw.trim().split(/[-_]/, 1)[0]!.toLowerCase();
  const code = LEGACY_LANGUAGE_CODES[primary] ?? primary;
  return ISO_639_1.has(code) ? ok(code) : invalid(message);
}

/** Normalizes a region code to upper case (`us-ca` -> `US-CA`); a bare country (`US`) is also accepted. */
export function normalizeRegionCode(raw: unknown): NormalizeResult {
  const message = 'must be a country or country-subdivision code such as "US" or "US-CA"';
  if (typeof raw !== 'string') return invalid(message);
  const code = raw.trim().toUpperCase().replace('_', '-');
  return REGION_PATTERN.test(code) ? ok(code) : invalid(message);
}

/** Normalizes a code to the grammar `[a-z0-9_]{1,64}`: lower-cased, spaces and hyphens become `_`. */
export function normalizeCode(raw: unknown): NormalizeResult {
  const message = 'must be 1 to 64 characters of a-z, 0-9 and _ (spaces and hyphens become _)';
  if (typeof raw !== 'string') return invalid(message);
  const code = raw.trim().toLowerCase().replace(/[ -]/g, '_');
  return CODE_PATTERN.test(code) ? ok(code) : invalid(message);
}

/** Normalizes a modality (`in-person`, `in_person`, `In Person` -> `in_person`; `virtual`). */
export function normalizeModalityCode(raw: unknown): NormalizeResult {
  const r = normalizeCode(raw);
  return r.ok && MODALITY_CODES.includes(r.value) ? r : invalid('must be "virtual" or "in_person"');
}

/** Normalizes an age group to one of `adult`, `adolescent`, `child`, `senior`. */
export function normalizeAgeGroupCode(raw: unknown): NormalizeResult {
  const r = normalizeCode(raw);
  return r.ok && AGE_GROUP_CODES.includes(r.value) ? r : invalid('must be one of adult, adolescent, child, senior');
}

// Canonical plan -> spellings, compared with everything but letters and digits removed.
const INSURANCE_ALIASES: Record<string, readonly string[]> = {
  self_pay: ['selfpay', 'cash', 'outofpocket', 'privatepay'],
  bcbs: ['bcbs', 'bluecrossblueshield', 'bluecrossandblueshield'],
  uhc: ['uhc', 'unitedhealthcare', 'unitedhealth'],
  cigna: ['cigna'],
  aetna: ['aetna'],
  humana: ['humana'],
  kaiser: ['kaiser', 'kaiserpermanente'],
  medicare: ['medicare'],
  medicaid: ['medicaid'],
  tricare: ['tricare'],
};

// Corporate suffixes that do not change which insurer is meant ("CIGNA Healthcare", "Aetna Inc.").
const INSURER_SUFFIXES = ['', 'healthcare', 'health', 'insurance', 'inc'];

const INSURANCE_BY_COMPACT = new Map<string, string>();
for (const [canonical, spellings] of Object.entries(INSURANCE_ALIASES)) {
  INSURANCE_BY_COMPACT.set(canonical.replace(/_/g, ''), canonical);
  for (const spelling of spellings) {
    // Payment terms (cash, self pay) take no corporate suffix.
    const suffixes = canonical === 'self_pay' ? [''] : INSURER_SUFFIXES;
    for (const suffix of suffixes) INSURANCE_BY_COMPACT.set(spelling + suffix, canonical);
  }
}

/**
 * Normalizes an insurance plan to its canonical code (`Blue Cross Blue Shield` -> `bcbs`, `cash` -> `self_pay`);
 * unknown plans are kept as a slug (`Oscar Health` -> `oscar_health`).
 */
export function normalizeInsurancePlan(raw: unknown): NormalizeResult {
  const message = 'must be an insurance plan name or code (letters and digits, at most 64 characters as a code)';
  if (typeof raw !== 'string') return invalid(message);
  // Fold accents and apostrophes/dots so "Anthem B.C." and "Anthem BC" slug alike.
  const folded = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’.]/g, '');
  const compact = folded.replace(/[^a-z0-9]/g, '');
  if (compact === '') return invalid(message);
  const canonical = INSURANCE_BY_COMPACT.get(compact);
  if (canonical !== undefined) return ok(canonical);
  const slug = folded.replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return CODE_PATTERN.test(slug) ? ok(slug) : invalid(message);
}

/** Normalizes every element of a list, dropping duplicates (first occurrence kept) or naming the first invalid index. */
export function normalizeCodeList(raw: readonly unknown[], normalize: CodeNormalizer): NormalizeListResult {
  const seen = new Set<string>();
  const value: string[] = [];
  for (let index = 0; index < raw.length; index++) {
    const r = normalize(raw[index]);
    if (!r.ok) return { ok: false, index, message: r.message };
    if (!seen.has(r.value)) {
      seen.add(r.value);
      value.push(r.value);
    }
  }
  return { ok: true, value };
}
