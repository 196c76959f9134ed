/**
 * The reading of a typed enum whose values a table names (`{ free: Plan.PLAN_FREE, ... }`): the name of a value, or
 * undefined for its `*_UNSPECIFIED` (not given), `UNRECOGNIZED` or a value the table does not name. One table per
 * enum serves both ways: the table writes answers, this reads requests.
 */
export function enumNames<N extends string, E extends string>(
  table: Record<N, E>,
): (value: E | undefined) => N | undefined {
  const names = new Map<string, N>(Object.entries(table).map(([n, v]) => [v as string, n as N]));
  return (value) => (value === undefined ? undefined : names.get(value));
}
