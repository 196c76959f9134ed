/** Renders rows as a left-aligned text table with a header rule. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Formats milliseconds with one decimal. */
export const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : 'n/a');
/** Formats seconds from milliseconds. */
export const sec = (x: number) => `${(x / 1000).toFixed(2)} s`;
/** Formats a rate per second. */
export const perSec = (x: number) => `${x.toFixed(1)}/s`;
/** "met" / "MISSED" against a target. */
export const verdict = (value: number, target: number) => (value <= target ? 'met' : 'MISSED');
