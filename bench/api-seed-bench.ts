import { performance } from 'node:perf_hooks';
import { createBenchClient, expectStatus, type BenchResponse, type HttpTarget } from './bench-client.js';
import { latencyStats, type LatencyStats } from './latency-stats.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { obeyRetryAfter } from './obey-retry-after.js';
import { generateProviders } from './provider-mix.js';
import type { ResponseTally } from './response-tally.js';
import { createBenchOrganization } from './seed-organization.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

/** The kinds of write the seeding makes, one of each per provider. */
const KINDS = ['provider', 'service', 'schedule'] as const;
type WriteKind = (typeof KINDS)[number];

/** What seeding an organization call by call found. */
export interface ApiSeedResult {
  organizationId: string;
  /** The intake service of each provider written (the resolution rows pick from these). */
  serviceIds: string[];
  providerCount: number;
  clients: number;
  retries: number;
  measurement: ScenarioMeasurement;
  /** Writes sent (a write retried after a 503 counts once). */
  writes: number;
  /** Writes that never succeeded: still refused after every retry, or answered another error. */
  lostWrites: number;
  /** Lost writes by kind and last status (`service 503`). */
  lostByKind: Record<string, number>;
  /** Writes of a provider whose own creation was lost (not sent). */
  skippedWrites: number;
  /** 503 answers received (each waited out while retries were left). */
  refusals: number;
  /** Writes that succeeded only after at least one 503. */
  retriedWrites: number;
  /** Wall time of each successful write, its waits for Retry-After included. */
  writeLatency: LatencyStats;
  /** Writes per second over the whole seeding. */
  writesPerSecond: number;
  /** GET /api/v2/providers `total` afterwards: every provider whose creation succeeded must be there. */
  providersReadBack: number;
}

/**
 * Seeds a new organization of `providerCount` providers (provider-mix.ts) through single calls on the platform
 * path, as a platform syncing its directory does: `clients` clients (the 32) each take the next provider and
 * create it (POST /api/v2/providers), its 50-minute intake service (POST /api/v2/services) and its weekly schedule
 * (POST /api/v2/calendar-connections), one call after the other. Every client obeys Retry-After: a 503 is waited out
 * and sent again, at most `retries` times (the 6). A write still refused after that is lost (the target: none).
 * A provider create retried after a 503 that finds its externalId taken (409) was written by an earlier attempt: it is
 * looked up, not lost.
 */
export async function seedOrganizationThroughApi(
  o: {
    id: string;
    label: string;
    target: HttpTarget;
    tally: ResponseTally;
    platformKey: string;
    providerCount: number;
    clients: number;
    retries: number;
    nowMs: number;
    rnd: SeededRandom;
  },
  ctx: MeasureContext,
): Promise<ApiSeedResult> {
  const platform = createBenchClient(o.target, { key: o.platformKey, tally: o.tally });
  const { organizationId } = await createBenchOrganization(platform, 'Bench API-seeded Clinic');
  const api = createBenchClient(o.target, {
    key: o.platformKey,
    headers: { 'service-organization-id': organizationId },
    tally: o.tally,
  });
  const generated = generateProviders(o.rnd, o.providerCount, o.nowMs);
  const serviceIds: string[] = [];
  const writeMs: number[] = [];
  const lostByKind: Record<string, number> = {};
  let writes = 0;
  let lostWrites = 0;
  let skippedWrites = 0;
  let refusals = 0;
  let retriedWrites = 0;
  let next = 0;
  /** One write obeying Retry-After; answers its last response, or undefined when it was lost. */
  const write = async (kind: WriteKind, send: () => Promise<BenchResponse>, ok: (r: BenchResponse) => boolean) => {
    writes++;
    const t0 = performance.now();
    const r = await obeyRetryAfter(send, o.retries);
    refusals += r.refusals;
    if (!ok(r.response)) {
      lostWrites++;
      const key = `${kind} ${r.response.status}`;
      lostByKind[key] = (lostByKind[key] ?? 0) + 1;
      return undefined;
    }
    if (r.refusals > 0) retriedWrites++;
    writeMs.push(performance.now() - t0);
    return r.response;
  };
  const created = (r: BenchResponse) => r.status === 200 || r.status === 201;
  const t0 = performance.now();
  const measurement = await measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: o.clients,
      durationMs: 24 * 3600 * 1000,
      warmupMs: 0,
      task: async () => {
        const g = generated[next++];
        if (!g) return 'stop';
        const start = performance.now();
        let retried = false;
        const p = await write(
          'provider',
          async () => {
            const r = await api.post('/api/v2/providers', g.row);
            if (r.status === 409 && retried) {
              // An attempt refused late may have been written after all: the externalId is then taken by it.
              const found = await api.get(`/api/v2/providers?externalId=${encodeURIComponent(g.externalId)}`);
              const id = found.body?.data?.[0]?.id;
              if (found.status === 200 && id) return { ...r, status: 200, body: { id } };
            }
            if (r.status === 503) retried = true;
            return r;
          },
          created,
        );
        if (!p) {
          skippedWrites += 2;
          return 'fail';
        }
        const providerId = p.body.id as string;
        const s = await write(
          'service',
          () =>
            api.post('/api/v2/services', {
              providerId,
              title: 'Intake Session',
              duration: 50,
              modality: g.serviceModality,
            }),
          created,
        );
        if (s) serviceIds.push(s.body.id as string);
        const c = await write(
          'schedule',
          () =>
            api.post('/api/v2/calendar-connections', {
              providerId,
              title: 'Office hours',
              timezone: g.timezone,
              days: g.days,
            }),
          created,
        );
        return s && c ? performance.now() - start : 'fail';
      },
    },
    ctx,
  );
  const wallMs = performance.now() - t0;
  const list = expectStatus(await api.get('/api/v2/providers?limit=1'), 'list providers', [200]);
  return {
    organizationId,
    serviceIds,
    providerCount: o.providerCount,
    clients: o.clients,
    retries: o.retries,
    measurement,
    writes,
    lostWrites,
    lostByKind,
    skippedWrites,
    refusals,
    retriedWrites,
    writeLatency: latencyStats(writeMs),
    writesPerSecond: writes / (wallMs / 1000),
    providersReadBack: Number(list.body.total),
  };
}
