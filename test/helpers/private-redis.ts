import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, type Redis } from '../../src/persistence/redis-client.js';
import { startPrivateRedis } from '../../src/launcher/private-redis.js';

/** A throw-away redis-server for one test file (never the system Redis), with a connected client. */
export interface TestRedis {
  url: string;
  client: Redis;
  /** Opens another client on the same server (e.g. a second "process" after a restart). */
  connect(): Promise<Redis>;
  stop(): Promise<void>;
}

/**
 * Spawns `redis-server` on a free port with persistence off and data in a temporary folder, waits for PING
 * and connects. Call `stop()` in `test.after.always`.
 */
export async function startTestRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(process.env.TEST_DATA_DIR ?? tmpdir(), 'redis-'));
  const server = await startPrivateRedis({ dir, appendOnly: false });
  const clients: Redis[] = [];
  const connect = async () => {
    const c = await createRedis(server.url);
    clients.push(c);
    return c;
  };
  const client = await connect();
  return {
    url: server.url,
    client,
    connect,
    async stop() {
      for (const c of clients) await c.close().catch(() => undefined);
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
