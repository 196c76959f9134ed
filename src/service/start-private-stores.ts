import { join } from 'node:path';
import type { Config } from '../config/load-config.js';
import { startPrivateRedis } from '../launcher/private-redis.js';
import { startEmbeddedPostgres } from '../launcher/embedded-postgres.js';
import { superviseStore, type StoreChild, type SuperviseOptions } from '../launcher/supervise-store.js';
import type { Lifetime } from './lifetime.js';

/** Where the service's stores are: the configured URLs, or those of the private stores started for them. */
export interface StoreUrls {
  redisUrl: string;
  databaseUrl: string;
}

/**
 * Starts a supervised private redis-server and/or embedded PostgreSQL under `config.dataDir` for each store that has no
 * configured URL; each stops (cleanly, after everything registered later) with the lifetime.
 */
export async function startPrivateStores(
  config: Config,
  lifetime: Lifetime,
  log: SuperviseOptions<StoreChild>['log'],
): Promise<StoreUrls> {
  // A private store that dies is started again on the same data and port (not once a stop began): clients reconnect
  // to the same URL.
  const shouldRestart = () => !lifetime.draining;
  let redisUrl = config.redisUrl;
  if (redisUrl === undefined) {
    const dir = join(config.dataDir, 'redis');
    const first = await startPrivateRedis({ dir });
    redisUrl = first.url;
    const redis = superviseStore({
      name: 'redis-server',
      first,
      restart: () => startPrivateRedis({ dir, port: first.port }),
      log,
      shouldRestart,
    });
    lifetime.defer(() => redis.stop());
  }
  let databaseUrl = config.databaseUrl;
  if (databaseUrl === undefined) {
    const dir = join(config.dataDir, 'postgres');
    const first = await startEmbeddedPostgres({ dir });
    databaseUrl = first.url;
    const postgres = superviseStore({
      name: 'postgres',
      first,
      restart: () => startEmbeddedPostgres({ dir, port: first.port }),
      log,
      shouldRestart,
    });
    lifetime.defer(() => postgres.stop());
  }
  return { redisUrl, databaseUrl };
}
