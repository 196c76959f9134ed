import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHttpTarget } from './bench-client.js';
import { firstBenchDate } from './bench-dates.js';
import { newPlatformKey, startBenchService } from './bench-service.js';
import type { BenchStores } from './bench-stores.js';
import type { ResponseTally } from './response-tally.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';
import { seedOrganization } from './seed-organization.js';

const SEED_VERSION = 2;

/** What the kept stores of the developer loops hold, written once they are seeded. */
export interface KeptSeed {
  version: number;
  platformKey: string;
  organizationId: string;
  orgKey: string;
  serviceIds: string[];
  providerCount: number;
  usedProviderIds: string[];
}

/** The seed recorded in `dir`, if any; throws when an older bench wrote it. */
export function readKeptSeed(dir: string): KeptSeed | undefined {
  const file = join(dir, 'seed.json');
  const kept: KeptSeed | undefined = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  if (kept && kept.version !== SEED_VERSION)
    throw new Error(`${dir} was seeded by an older bench: delete it to start over`);
  return kept;
}

/**
 * The seed of the kept stores in `dir` (`npm run bench:quick`, `npm run bench:overload`): read back, or made once
 * through a service process of its own (an organization of `providerCount` providers, as `npm run bench` seeds).
 */
export async function keptSeed(o: {
  dir: string;
  stores: BenchStores;
  providerCount: number;
  tally: ResponseTally;
  log: (line: string) => void;
}): Promise<KeptSeed> {
  const kept = readKeptSeed(o.dir);
  if (kept) return kept;
  const platformKey = newPlatformKey();
  const first = await startBenchService(o.stores, platformKey, 'seeding');
  const target = createHttpTarget(first.url);
  try {
    const nowMs = Date.now();
    const s = await seedOrganization({
      target,
      tally: o.tally,
      platformKey,
      providerCount: o.providerCount,
      rowsPerImport: 500,
      concurrency: 16,
      existingBookings: 200,
      firstDate: firstBenchDate(nowMs),
      nowMs,
      rnd: createSeededRandom(20_260_301),
      log: o.log,
    });
    const seed: KeptSeed = {
      version: SEED_VERSION,
      platformKey,
      organizationId: s.organizationId,
      orgKey: s.orgKey,
      serviceIds: s.providers.map((p) => p.serviceId),
      providerCount: s.providers.length + 1,
      usedProviderIds: [...s.usedProviderIds],
    };
    writeFileSync(join(o.dir, 'seed.json'), JSON.stringify(seed));
    return seed;
  } finally {
    await target.close();
    await first.process.stop();
  }
}
