import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { BenchClient } from './bench-client.js';
import { runClosedLoop, throughputOf } from './closed-loop.js';
import { latencyStats, type LatencyStats } from './latency-stats.js';
import { typicalResolutionBody } from './resolution-requests.js';
import type { SeededRandom } from './seeded-random.js';

/** What the resolution scenario measured. */
export interface ResolutionBenchResult {
  /** One client, back to back: the latency without queueing. */
  singleClient: LatencyStats;
  latency: LatencyStats;
  resolutionsPerSecond: number;
  resolved: number;
  zeroResults: number;
  failures: number;
  failureCodes: Record<string, number>;
  meanEvaluatedSlots: number;
  meanOptionsReturned: number;
  meanEligibleProviders: number;
  meanProvidersScanned: number;
  /** Resident set size of each service process during the run (MB): peak of 100 ms samples, and at the end. */
  rssPeakMb: number[];
  rssEndMb: number[];
}

/** Resident set size of a process (bytes), read from /proc. */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Samples the RSS of the given processes every 100 ms until stopped; returns each one's peak in bytes. */
export function sampleRss(pids: readonly number[]): { stop(): number[] } {
  const peaks = pids.map(rssOf);
  const sample = () => pids.forEach((pid, i) => { peaks[i] = Math.max(peaks[i]!, rssOf(pid)); });
  const timer = setInterval(sample, 100);
  return { stop: () => { clearInterval(timer); sample(); return peaks; } };
}

/**
 * Loads POST /api/v2/resolutions through the gateway (of the service processes `servicePids`) with typical constraints over 14 days, first from one
 * client for `singleClientMs`, then from `concurrency` clients for `durationMs`; each request has its own Idempotency-Key.
 */
export async function benchResolutions(o: { servicePids: readonly number[]; api: BenchClient; rnd: SeededRandom; serviceIds: readonly string[]; firstDate: string; concurrency: number; durationMs: number; singleClientMs: number; warmup: number }): Promise<ResolutionBenchResult> {
  const body = () => typicalResolutionBody(o.rnd, { serviceIds: o.serviceIds, from: o.firstDate, days: 14 });
  for (let i = 0; i < o.warmup; i++) await o.api.post('/api/v2/resolutions', body(), { 'idempotency-key': randomUUID() });
  const single = await runClosedLoop({
    concurrency: 1,
    durationMs: o.singleClientMs,
    task: async () => {
      const res = await o.api.post('/api/v2/resolutions', body(), { 'idempotency-key': randomUUID() });
      return res.status === 200 ? res.ms : 'fail';
    },
  });
  let resolved = 0;
  let zeroResults = 0;
  let slots = 0;
  let options = 0;
  let eligible = 0;
  let scanned = 0;
  const failureCodes: Record<string, number> = {};
  const rss = sampleRss(o.servicePids);
  const r = await runClosedLoop({
    concurrency: o.concurrency,
    durationMs: o.durationMs,
    task: async () => {
      const res = await o.api.post('/api/v2/resolutions', body(), { 'idempotency-key': randomUUID() });
      if (res.status !== 200) {
        const code = `${res.status} ${res.body?.error?.code ?? ''}`.trim();
        failureCodes[code] = (failureCodes[code] ?? 0) + 1;
        return 'fail';
      }
      const s = res.body.summary;
      if (res.body.status === 'resolved') resolved++; else zeroResults++;
      slots += s.evaluatedSlots;
      options += s.optionsReturned;
      eligible += s.eligibleProviders;
      scanned += s.providersScanned;
      return res.ms;
    },
  });
  const peaks = rss.stop();
  const n = r.latencies.length || 1;
  return {
    singleClient: latencyStats(single.latencies),
    latency: latencyStats(r.latencies),
    resolutionsPerSecond: throughputOf(r),
    resolved, zeroResults, failures: r.failures, failureCodes,
    meanEvaluatedSlots: slots / n, meanOptionsReturned: options / n, meanEligibleProviders: eligible / n, meanProvidersScanned: scanned / n,
    rssPeakMb: peaks.map((b) => b / 2 ** 20), rssEndMb: o.servicePids.map((pid) => rssOf(pid) / 2 ** 20),
  };
}
