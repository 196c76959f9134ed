/** Renders rows as a left-aligned text table with a header rule. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join(' | ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(line)].join('\n');
}

/** Formats milliseconds: one decimal, two below 10 ms (the raw baseline answers in a fraction of one). */
export const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(x < 10 ? 2 : 1)} ms` : 'n/a');
/** Formats seconds from milliseconds. */
export const sec = (x: number) => `${(x / 1000).toFixed(1)} s`;
/** Formats a rate per second. */
export const perSec = (x: number) => (Number.isFinite(x) ? `${x >= 100 ? x.toFixed(0) : x.toFixed(1)}/s` : 'n/a');
/** Formats a share as a percentage with enough digits for small ones (12.3%, 0.41%, 0.0048%). */
export const percent = (share: number) =>
  !Number.isFinite(share)
    ? 'n/a'
    : share >= 0.1
      ? `${(share * 100).toFixed(1)}%`
      : share >= 0.0001
        ? `${(share * 100).toFixed(2)}%`
        : `${(share * 100).toPrecision(2)}%`;
