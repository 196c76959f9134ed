import type { Database } from '../persistence/database.js';
import {
  anyPlatformExists,
  findPlatformOfKeyHash,
  insertApiKey,
  insertPlatform,
  lockBootstrap,
} from '../persistence/api-key-repository.js';
import { hashApiKey, isWellFormedApiKey, keyMode } from '../domain/api-key-secret.js';

const BOOTSTRAP_LOCK_ID = 7_245_002;

/**
 * Ensures a platform account exists (CONTRACT part 0). With `bootstrapKey`, ensures a platform holds that
 * key; without it, the first start on an empty database creates a platform with a platform_test key.
 * Returns the new key when one was generated (to print once).
 */
export async function bootstrapPlatform(
  db: Database,
  opts: { bootstrapKey: string | undefined; now: Date },
): Promise<{ generatedKey?: string; platformId?: string }> {
  if (opts.bootstrapKey !== undefined && !isWellFormedApiKey(opts.bootstrapKey)) {
    throw new Error(
      'SERVICE_BOOTSTRAP_PLATFORM_KEY must be service_live_ or service_test_ followed by at least 32 URL-safe characters',
    );
  }
  return db.transaction(async (tx) => {
    await lockBootstrap(tx, BOOTSTRAP_LOCK_ID);
    if (opts.bootstrapKey) {
      const existing = await findPlatformOfKeyHash(tx, hashApiKey(opts.bootstrapKey));
      if (existing !== undefined) return { platformId: existing };
      const { platformId, organizationId } = await insertPlatform(tx, { name: 'Platform', now: opts.now });
      const type = keyMode(opts.bootstrapKey) === 'live' ? 'platform_live' : 'platform_test';
      await insertApiKey(tx, {
        platformId,
        organizationId,
        type,
        name: 'bootstrap',
        now: opts.now,
        secret: opts.bootstrapKey,
      });
      return { platformId };
    }
    if (await anyPlatformExists(tx)) return {};
    const { platformId, organizationId } = await insertPlatform(tx, { name: 'Platform', now: opts.now });
    const { key } = await insertApiKey(tx, {
      platformId,
      organizationId,
      type: 'platform_test',
      name: 'first start',
      now: opts.now,
    });
    return { generatedKey: key, platformId };
  });
}
