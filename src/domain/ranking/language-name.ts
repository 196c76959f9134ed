/** English names of language codes, for sentences read aloud. */

// Fixed names for the common codes so wording never drifts with the ICU version; Intl covers the rest.
const NAMES: Readonly<Record<string, string>> = Object.freeze({
  en: 'English',
  es: 'Spanish',
  fr: 'French',
  de: 'German',
  it: 'Italian',
  pt: 'Portuguese',
  zh: 'Chinese',
  yue: 'Cantonese',
  cmn: 'Mandarin',
  vi: 'Vietnamese',
  ar: 'Arabic',
  ko: 'Korean',
  ja: 'Japanese',
  ru: 'Russian',
  uk: 'Ukrainian',
  pl: 'Polish',
  tl: 'Tagalog',
  fil: 'Filipino',
  hi: 'Hindi',
  ur: 'Urdu',
  bn: 'Bengali',
  pa: 'Punjabi',
  fa: 'Persian',
  he: 'Hebrew',
  ht: 'Haitian Creole',
  so: 'Somali',
  am: 'Amharic',
  sw: 'Swahili',
  el: 'Greek',
  tr: 'Turkish',
  hy: 'Armenian',
  km: 'Khmer',
  hmn: 'Hmong',
  ase: 'American Sign Language',
  asl: 'American Sign Language',
});

const displayNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** languageName gives the English name of a language code (`es` -> `Spanish`), or the code itself when unknown. */
export function languageName(code: string): string {
  const key = code.trim().toLowerCase();
  const known = NAMES[key];
  if (known) return known;
  try {
    return displayNames.of(key) ?? code;
  } catch {
    return code;
  }
}
