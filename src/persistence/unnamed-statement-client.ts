import pg from 'pg';

/**
 * A pg client that runs every query as an unnamed statement: the `name` of a query config is dropped. Behind a
 * transaction pooler (PgBouncer 1.18 has no prepared-statement support) a statement prepared under a name lives on
 * one server connection while the client's later transactions run on others, where it does not exist (SQLSTATE
 * 26000) or another client prepared it already (42P05). Unnamed statements are parsed with each run instead.
 */
export class UnnamedStatementClient extends pg.Client {
  override query(...args: unknown[]): never {
    const first = args[0];
    // A submittable (pg.Query, a cursor) carries its own protocol; only plain configs are rewritten.
    if (
      first &&
      typeof first === 'object' &&
      'name' in first &&
      typeof (first as { submit?: unknown }).submit !== 'function'
    ) {
      const { name: _name, ...unnamed } = first as pg.QueryConfig;
      args[0] = unnamed;
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}
