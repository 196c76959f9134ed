/** A set of provider positions as a bitset (bit i = the provider at position i). */
export type ProviderSet = Uint32Array;

/** An empty set of `words` 32-bit words. */
export const newSet = (words: number): ProviderSet => new Uint32Array(words);

/** Adds position `i` to a set. */
export const add = (s: ProviderSet, i: number): void => {
  s[i >>> 5]! |= 1 << (i & 31);
};

/** Answers whether position `i` is in a set. */
export const has = (s: ProviderSet, i: number): boolean => (s[i >>> 5]! & (1 << (i & 31))) !== 0;

/** The union of the given sets (absent ones count as empty). */
export function union(words: number, sets: readonly (ProviderSet | undefined)[]): ProviderSet {
  const out = newSet(words);
  for (const s of sets) if (s) for (let w = 0; w < words; w++) out[w]! |= s[w]!;
  return out;
}

/** The number of bits set in a 32-bit word. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The positions in a set, ascending. */
export function positions(set: ProviderSet): number[] {
  const out: number[] = [];
  for (let w = 0; w < set.length; w++) {
    let bits = set[w]!;
    while (bits !== 0) {
      const low = bits & -bits;
      out.push(w * 32 + 31 - Math.clz32(low));
      bits ^= low;
    }
  }
  return out;
}
