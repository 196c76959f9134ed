/** A rate or mean as the analytics answer it: rounded half up to `decimals` places. */
export function rounded(n: number, decimals: number): number {
  return Math.round(n * 10 ** decimals) / 10 ** decimals;
}
