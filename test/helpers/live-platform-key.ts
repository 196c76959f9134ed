import { hashApiKey } from '../../src/domain/api-key-secret.js';
import { findKeyByHash, insertApiKey } from '../../src/persistence/api-key-repository.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import type { TestService } from './test-service.js';

const made = new WeakMap<TestService, Promise<string>>();

/**
 * A platform_live key of the platform that holds `platformKey`, stored in the database at `databaseUrl` the way the
 * operator's `npm run keys -- create --type platform_live` stores one: the API gives live keys only to live keys
 * (CONTRACT part 2), and a test service's platform key is a test key.
 */
export async function createLivePlatformKey(
  target: { db?: Database; databaseUrl?: string },
  platformKey: string,
  now = new Date(),
): Promise<string> {
  const db = target.db ?? createDatabase(target.databaseUrl!);
  try {
    const bootstrap = await findKeyByHash(db, hashApiKey(platformKey));
    if (!bootstrap) throw new Error('createLivePlatformKey: no platform holds the given key');
    const { key } = await insertApiKey(db, {
      platformId: bootstrap.platform_id,
      organizationId: bootstrap.organization_id,
      type: 'platform_live',
      name: 'live (operator)',
      now,
    });
    return key;
  } finally {
    if (!target.db) await db.close();
  }
}

/**
 * A platform_live key of a test service's platform: its own platform key when that is live (a service process started
 * with one), else one made once per service in its database (see createLivePlatformKey).
 */
export function livePlatformKey(svc: TestService): Promise<string> {
  if (svc.platformKey.startsWith('service_live_')) return Promise.resolve(svc.platformKey);
  let key = made.get(svc);
  if (!key) {
    if (!svc.service?.deps)
      throw new Error('livePlatformKey: a service process needs a live platform key (SERVICE_BOOTSTRAP_PLATFORM_KEY)');
    key = createLivePlatformKey({ db: svc.service.deps.db }, svc.platformKey, svc.clock());
    made.set(svc, key);
  }
  return key;
}
