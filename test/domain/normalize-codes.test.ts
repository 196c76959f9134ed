import test from 'ava';
import {
  normalizeAgeGroupCode,
  normalizeCode,
  normalizeCodeList,
  normalizeInsurancePlan,
  normalizeLanguageCode,
  normalizeModalityCode,
  normalizeRegionCode,
} from '../../src/domain/normalize-codes.js';
import type { CodeNormalizer } from '../../src/domain/normalize-codes.js';

type Row = [normalizer: CodeNormalizer, name: string, input: unknown, expected: string | null];

const rows: Row[] = [
  [normalizeLanguageCode, 'language', 'ES', 'es'],
  [normalizeLanguageCode, 'language', 'es-MX', 'es'],
  [normalizeLanguageCode, 'language', 'pt_BR', 'pt'],
  [normalizeLanguageCode, 'language', ' en ', 'en'],
  [normalizeLanguageCode, 'language', 'zh-Hant-TW', 'zh'],
  [normalizeLanguageCode, 'language', 'iw', 'he'],
  [normalizeLanguageCode, 'language', 'xx', null],
  [normalizeLanguageCode, 'language', 'spa', null],
  [normalizeLanguageCode, 'language', 'english', null],
  [normalizeLanguageCode, 'language', '', null],
  [normalizeLanguageCode, 'language', 42, null],

  [normalizeRegionCode, 'region', 'us-ca', 'US-CA'],
  [normalizeRegionCode, 'region', 'GB-ENG', 'GB-ENG'],
  [normalizeRegionCode, 'region', 'us', 'US'],
  [normalizeRegionCode, 'region', 'us_ny', 'US-NY'],
  [normalizeRegionCode, 'region', 'USA', null],
  [normalizeRegionCode, 'region', 'US-CALI', null],
  [normalizeRegionCode, 'region', 'California', null],
  [normalizeRegionCode, 'region', '', null],

  [normalizeModalityCode, 'modality', 'in-person', 'in_person'],
  [normalizeModalityCode, 'modality', 'in_person', 'in_person'],
  [normalizeModalityCode, 'modality', 'In Person', 'in_person'],
  [normalizeModalityCode, 'modality', 'VIRTUAL', 'virtual'],
  [normalizeModalityCode, 'modality', 'phone', null],
  [normalizeModalityCode, 'modality', 'both', null],

  [normalizeCode, 'code', 'Clinical Psychologist', 'clinical_psychologist'],
  [normalizeCode, 'code', 'cbt-therapy', 'cbt_therapy'],
  [normalizeCode, 'code', 'LCSW_2', 'lcsw_2'],
  [normalizeCode, 'code', 'a'.repeat(64), 'a'.repeat(64)],
  [normalizeCode, 'code', 'a'.repeat(65), null],
  [normalizeCode, 'code', 'dr.', null],
  [normalizeCode, 'code', 'école', null],
  [normalizeCode, 'code', '   ', null],

  [normalizeAgeGroupCode, 'age group', 'Adult', 'adult'],
  [normalizeAgeGroupCode, 'age group', 'adolescent', 'adolescent'],
  [normalizeAgeGroupCode, 'age group', 'CHILD', 'child'],
  [normalizeAgeGroupCode, 'age group', 'senior', 'senior'],
  [normalizeAgeGroupCode, 'age group', 'toddler', null],

  [normalizeInsurancePlan, 'insurance', 'self pay', 'self_pay'],
  [normalizeInsurancePlan, 'insurance', 'Self-Pay', 'self_pay'],
  [normalizeInsurancePlan, 'insurance', 'self_pay', 'self_pay'],
  [normalizeInsurancePlan, 'insurance', 'cash', 'self_pay'],
  [normalizeInsurancePlan, 'insurance', 'Out of Pocket', 'self_pay'],
  [normalizeInsurancePlan, 'insurance', 'private pay', 'self_pay'],
  [normalizeInsurancePlan, 'insurance', 'Blue Cross Blue Shield', 'bcbs'],
  [normalizeInsurancePlan, 'insurance', 'BlueCross BlueShield', 'bcbs'],
  [normalizeInsurancePlan, 'insurance', 'BCBS', 'bcbs'],
  [normalizeInsurancePlan, 'insurance', 'UnitedHealthcare', 'uhc'],
  [normalizeInsurancePlan, 'insurance', 'United Healthcare', 'uhc'],
  [normalizeInsurancePlan, 'insurance', 'UHC', 'uhc'],
  [normalizeInsurancePlan, 'insurance', 'Cigna', 'cigna'],
  [normalizeInsurancePlan, 'insurance', 'CIGNA Healthcare', 'cigna'],
  [normalizeInsurancePlan, 'insurance', 'Aetna', 'aetna'],
  [normalizeInsurancePlan, 'insurance', 'Humana Inc.', 'humana'],
  [normalizeInsurancePlan, 'insurance', 'Kaiser Permanente', 'kaiser'],
  [normalizeInsurancePlan, 'insurance', 'MEDICARE', 'medicare'],
  [normalizeInsurancePlan, 'insurance', 'Medicaid', 'medicaid'],
  [normalizeInsurancePlan, 'insurance', 'TRICARE', 'tricare'],
  [normalizeInsurancePlan, 'insurance', 'Oscar Health', 'oscar_health'],
  [normalizeInsurancePlan, 'insurance', "St. Mary's Plan", 'st_marys_plan'],
  [normalizeInsurancePlan, 'insurance', 'Sécurité Sociale', 'securite_sociale'],
  [normalizeInsurancePlan, 'insurance', '', null],
  [normalizeInsurancePlan, 'insurance', ' -- ', null],
  [normalizeInsurancePlan, 'insurance', 'x'.repeat(65), null],
];

for (const [normalize, name, input, expected] of rows) {
  test(`${name} ${JSON.stringify(input)} -> ${expected ?? 'invalid'}`, (t) => {
    const r = normalize(input);
    if (expected === null) {
      t.false(r.ok);
      if (!r.ok) t.true(r.message.length > 0);
    } else {
      t.deepEqual(r, { ok: true, value: expected });
    }
  });
}

test('normalizeCodeList dedupes after normalization and keeps first-seen order', (t) => {
  t.deepEqual(normalizeCodeList(['es-MX', 'EN', 'es', 'fr'], normalizeLanguageCode), {
    ok: true,
    value: ['es', 'en', 'fr'],
  });
  t.deepEqual(normalizeCodeList(['cash', 'BCBS', 'self pay'], normalizeInsurancePlan), {
    ok: true,
    value: ['self_pay', 'bcbs'],
  });
  t.deepEqual(normalizeCodeList([], normalizeCode), { ok: true, value: [] });
});

test('normalizeCodeList reports the index of the first invalid element', (t) => {
  const r = normalizeCodeList(['en', 'xx', 'zz'], normalizeLanguageCode);
  t.false(r.ok);
  if (!r.ok) {
    t.is(r.index, 1);
    t.regex(r.message, /ISO 639-1/);
  }
});
