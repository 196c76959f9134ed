/**
 * Derives a service's slug from its title alone (CONTRACT part 3): accents are dropped, letters are
 * lower-cased, every run of characters other than `a-z` and `0-9` becomes one `-`, and leading and
 * trailing `-` are trimmed. The same title always gives the same slug; an empty result means the title
 * has no letter or digit to name the session type by.
 */
export function serviceSlug(title: string): string {
  return (
    title
      .toLowerCase()
      // NFKD splits accented letters and compatibility forms (`é` -> `e` + mark, `ﬁ` -> `fi`, full-width -> ASCII).
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
  );
}
