/** Readable names of canonical insurance plan codes, for sentences read aloud. */

const NAMES: Readonly<Record<string, string>> = Object.freeze({
  bcbs: 'Blue Cross Blue Shield',
  uhc: 'UnitedHealthcare',
  cigna: 'Cigna',
  aetna: 'Aetna',
  humana: 'Humana',
  kaiser: 'Kaiser Permanente',
  anthem: 'Anthem',
  medicare: 'Medicare',
  medicaid: 'Medicaid',
  tricare: 'TRICARE',
  optum: 'Optum',
  oscar: 'Oscar Health',
  molina: 'Molina Healthcare',
  ambetter: 'Ambetter',
  centene: 'Centene',
  magellan: 'Magellan Health',
  emblem: 'EmblemHealth',
  emblemhealth: 'EmblemHealth',
  highmark: 'Highmark',
  wellcare: 'WellCare',
  carelon: 'Carelon',
  beacon: 'Beacon Health Options',
  tufts: 'Tufts Health Plan',
  harvard_pilgrim: 'Harvard Pilgrim',
  self_pay: 'self-pay',
});

/** insurerName gives the readable name of a plan code (`uhc` -> `UnitedHealthcare`); unknown codes are title-cased. */
export function insurerName(code: string): string {
  const key = code.trim().toLowerCase();
  const known = NAMES[key];
  if (known) return known;
  return key
    .split(/[_\s-]+/)
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}
