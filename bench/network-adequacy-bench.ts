import type { BenchClient } from './bench-client.js';
import { benchGet } from './get-load.js';
import type { MeasureContext, ScenarioMeasurement } from './measure-scenario.js';
import { seedResolutionLedger } from './resolution-ledger-seed.js';
import { ROLLUP_DAYS_PER_READ } from '../src/persistence/network-adequacy-demand.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

/** The dimensions of GET /api/v2/analytics/network-adequacy, the most asked first. */
export const ADEQUACY_DIMENSIONS = ['language', 'modality', 'specialty', 'insurance', 'license_region'] as const;

/** What the network-adequacy bench measured: the seeding, and one measurement per dimension read. */
export interface NetworkAdequacyResult {
  seed: { resolutions: number; demandRows: number; ms: number };
  /** Per dimension, the time of the reads that rolled up the seeded days (a week of days each), in order. */
  rollUpReadsMs: Map<string, number[]>;
  byDimension: Map<string, ScenarioMeasurement>;
}

/**
 * Network adequacy over `resolutions` resolutions (issue 24): seeds them straight into PostgreSQL over the last 90
 * days (seedResolutionLedger), rolls their days up with the reads that do it (timed apart: a dashboard read over past
 * days is the steady state), then loads GET /api/v2/analytics/network-adequacy?period=last_90_days for each
 * dimension asked for, from `concurrency` clients, `durationMs` each. The organization's providers are counted on
 * every call too.
 */
export async function benchNetworkAdequacy(
  o: {
    api: BenchClient;
    databaseUrl: string;
    organizationId: string;
    resolutions: number;
    dimensions: readonly string[];
    concurrency: number;
    durationMs: number;
    nowMs: number;
    rnd: SeededRandom;
    log: (line: string) => void;
  },
  ctx: MeasureContext,
): Promise<NetworkAdequacyResult> {
  o.log(`network adequacy: seeding ${o.resolutions} resolutions by SQL`);
  const seed = await seedResolutionLedger({
    databaseUrl: o.databaseUrl,
    organizationId: o.organizationId,
    count: o.resolutions,
    nowMs: o.nowMs,
    rnd: o.rnd,
  });
  o.log(`  ${seed.resolutions} resolutions, ${seed.demandRows} demand rows in ${(seed.ms / 1000).toFixed(1)} s`);
  const byDimension = new Map<string, ScenarioMeasurement>();
  const rollUpReadsMs = new Map<string, number[]>();
  for (const dimension of o.dimensions) {
    const path = `/api/v2/analytics/network-adequacy?period=last_90_days&dimension=${dimension}`;
    // The days seeded are over: the first reads roll them up, a week per read (13 reads for 90 days); measured apart.
    const times: number[] = [];
    for (let i = 0; i < Math.ceil(90 / ROLLUP_DAYS_PER_READ) + 1; i++) times.push((await o.api.get(path)).ms);
    rollUpReadsMs.set(dimension, times);
    o.log(`  ${dimension}: roll-up reads ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
    o.log(`  GET network-adequacy?dimension=${dimension}, ${o.concurrency} client(s) (${o.durationMs / 1000} s)`);
    byDimension.set(
      dimension,
      await benchGet(
        {
          id: `network-adequacy.${dimension}.c${o.concurrency}`,
          label: `GET network-adequacy, ${dimension}, last_90_days, ${o.resolutions} resolutions, ${o.concurrency} client(s)`,
          api: o.api,
          path,
          concurrency: o.concurrency,
          durationMs: o.durationMs,
        },
        ctx,
      ),
    );
  }
  return { seed, rollUpReadsMs, byDimension };
}
