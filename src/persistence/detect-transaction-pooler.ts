import pg from 'pg';

/** How DATABASE_URL reaches PostgreSQL (DATABASE_POOL_MODE): straight, through a transaction pooler, or found out. */
export type PoolModeSetting = 'auto' | 'direct' | 'transaction';

/**
 * Answers whether the service must treat `url` as a transaction pooler (PgBouncer's `pool_mode = transaction`): no
 * session state (startup parameters, `SET`, named prepared statements, session advisory locks) outlives a transaction.
 * `direct` and `transaction` are taken as said. `auto` connects once, without startup parameters a pooler could
 * refuse, and compares the backend pid the connection was told at start-up (BackendKeyData) with the pid of the
 * backend that runs its query: a server tells its own pid; PgBouncer answers start-up itself with a cancel key of
 * its own making, so they differ. Any pooler is then handled as a transaction pooler, which is also correct for
 * session pooling.
 */
export async function detectTransactionPooler(
  url: string,
  mode: PoolModeSetting,
  opts: { connectTimeoutMs?: number } = {},
): Promise<boolean> {
  if (mode !== 'auto') return mode === 'transaction';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000 });
  // A connection lost while it is open fails the query; the event itself must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const told = (client as unknown as { processID: number | null }).processID;
    const r = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return told !== r.rows[0]?.pid;
  } finally {
    await client.end().catch(() => undefined);
  }
}
