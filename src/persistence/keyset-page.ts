/** One page of a keyset-paged list: the rows strictly past a position in the keyset's order, at most `limit` of them. */
export interface KeysetPage {
  /** The keyset: columns, most significant first, unique together (the last is an id), e.g. `['created_at', 'id']`. */
  columns: readonly string[];
  /** `asc`: rows after the position, smallest first; `desc`: rows before it, largest (newest) first. */
  order: 'asc' | 'desc';
  /**
   * The position the page starts past (the keyset of the previous page's last row), undefined for the first page:
   * one value per column, or a function that writes the SQL of a row to compare with (adding its values through
   * `param`), for a position read from a row (`(SELECT created_at, id FROM ... WHERE id = $n)`) or a cast value.
   */
  after?: readonly unknown[] | ((param: (value: unknown) => string) => string) | undefined;
  /** Rows to read (the page size plus one, when the caller wants to know whether more follow). */
  limit: number;
}

/**
 * Adds a keyset page to a query being built: pushes the position's comparison onto `query.where` (AND-ed by the
 * caller) and its values and the limit onto `query.args`, and answers the `ORDER BY ... LIMIT $n` to end the
 * statement with. The comparison is a row comparison over the whole keyset, so an index on those columns (after the
 * equality filters) serves both the WHERE and the ORDER BY.
 */
export function keysetPage(query: { where: string[]; args: unknown[] }, page: KeysetPage): string {
  const param = (value: unknown) => {
    query.args.push(value);
    return `$${query.args.length}`;
  };
  const [only, ...more] = page.columns;
  if (only === undefined) throw new Error('a keyset has at least one column');
  const single = more.length === 0;
  const after = page.after;
  if (after !== undefined) {
    const keyset = single ? only : `(${page.columns.join(', ')})`;
    const position =
      typeof after === 'function'
        ? after(param)
        : single
          ? param(after[0])
          : `(${after.map((v) => param(v)).join(', ')})`;
    query.where.push(`${keyset} ${page.order === 'asc' ? '>' : '<'} ${position}`);
  }
  const direction = page.order === 'asc' ? '' : ' DESC';
  return `ORDER BY ${page.columns.map((c) => c + direction).join(', ')} LIMIT ${param(page.limit)}`;
}
