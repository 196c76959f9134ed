import type pg from 'pg';

/**
 * Runs `fn` on a connection of `pool` inside a transaction that is always rolled back: how tests tamper with
 * append-only tables (the triggers are disabled for that transaction only). DISABLE TRIGGER locks the table until
 * the rollback, so tests that use it run serially.
 */
export async function inRolledBackTransaction(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<void>): Promise<void> {
  const tx = await pool.connect();
  try {
    await tx.query('BEGIN');
    await fn(tx);
  } finally {
    await tx.query('ROLLBACK').catch(() => undefined);
    tx.release();
  }
}
