import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { startEmbeddedPostgres, type PrivatePostgres } from '../launcher/embedded-postgres.js';
import { createDatabase, type Database } from '../persistence/database.js';
import { detectTransactionPooler } from '../persistence/detect-transaction-pooler.js';
import { runMigrations } from '../persistence/run-migrations.js';

/** Thrown when a CLI cannot reach the database; its message tells the user what to do. */
export class CliDatabaseError extends Error {}

/** A database opened for an operator command, migrated; `close` also stops an embedded cluster it started. */
export interface CliDatabase {
  db: Database;
  close(): Promise<void>;
}

/** Answers the pid of a live postmaster owning `dataDir`, if any. */
function livePostmaster(dataDir: string): { pid: number; port: string | undefined } | undefined {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]?.trim());
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  return { pid, port: lines[3]?.trim() };
}

/**
 * Opens the service's database the way `npm start` would: DATABASE_URL when set, else the embedded PostgreSQL
 * under `$DATA_DIR/postgres`. A cluster already running there (a live `npm start`) is left alone: the command
 * refuses with a message naming the DATABASE_URL to use, since starting the launcher would stop that cluster.
 */
export async function openCliDatabase(env: NodeJS.ProcessEnv = process.env): Promise<CliDatabase> {
  const config = loadConfig(env);
  let embedded: PrivatePostgres | undefined;
  let url = config.databaseUrl;
  if (url === undefined) {
    const dir = join(config.dataDir, 'postgres');
    const running = livePostmaster(join(dir, 'data'));
    if (running) {
      throw new CliDatabaseError(
        `The embedded PostgreSQL in ${dir} is in use (pid ${running.pid}, probably \`npm start\`); run this command with DATABASE_URL=postgres://postgres:$(cat ${join(dir, 'password')})@127.0.0.1:${running.port ?? '<port>'}/scheduling`,
      );
    }
    embedded = await startEmbeddedPostgres({ dir });
    url = embedded.url;
  }
  let db: Database | undefined;
  try {
    db = createDatabase(url, {
      max: 2,
      transactionPooler: await detectTransactionPooler(url, config.databasePoolMode),
    });
    await runMigrations(db.pool);
  } catch (err) {
    await db?.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
  const opened = db;
  return {
    db: opened,
    async close() {
      await opened.close().catch(() => undefined);
      await embedded?.stop().catch(() => undefined);
    },
  };
}
