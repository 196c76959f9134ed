import { performance } from 'node:perf_hooks';
import { client } from '../test/helpers/http.js';
import { weekdays } from '../test/helpers/graph-fixtures.js';
import { shareOfRaw, type BenchRow } from './bench-report.js';
import { firstBenchDate, addDays } from './bench-dates.js';
import { runClosedLoop } from './closed-loop.js';
import { latencyStats, type LatencyStats } from './latency-stats.js';
import type { RawBaseline } from './raw-baseline.js';
import { ms, perSec } from './report-table.js';

/** What the stream-flood scenario measured. */
export interface StreamFloodResult {
  rows: BenchRow[];
  /** The readers in quiet windows, and in windows while one key tries to open streams. */
  quiet: { perSecond: number; latency: LatencyStats; failures: number };
  flooded: { perSecond: number; latency: LatencyStats; failures: number };
  attempts: number;
  /** Stream attempts by HTTP status (200: opened and held until the phase ended). */
  attemptStatuses: Record<string, number>;
  attemptLatency: LatencyStats;
  /** flooded p99 / quiet p99 (target: at most 1.5). */
  p99Ratio: number;
}

/** Makes an organization with one provider, service and weekday schedule, and one resolution of it. */
async function organizationWithResolution(url: string, platformKey: string, name: string) {
  const platform = client(url, platformKey);
  const org = (await platform.post('/api/v2/organizations', { externalId: `${name}-${Date.now()}`, name })).body;
  const key = (
    await platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'bench' })
  ).body.key as string;
  const api = client(url, key);
  const inOrg = client(url, platformKey, { 'service-organization-id': org.id });
  const provider = (
    await inOrg.post('/api/v2/providers', { externalId: 'p1', displayName: 'Dr. Flood', languageCodes: ['en'] })
  ).body;
  const service = (await api.post('/api/v2/services', { providerId: provider.id, title: 'Intake', duration: 60 })).body;
  await api.post('/api/v2/calendar-connections', {
    providerId: provider.id,
    timezone: 'America/New_York',
    days: weekdays(),
  });
  const from = firstBenchDate(Date.now());
  const r = await api.post(
    '/api/v2/resolutions',
    { serviceId: service.id, dateRange: { from, to: addDays(from, 7) }, maxOptionsPerProvider: 1 },
    { 'idempotency-key': `flood-${name}-${Date.now()}` },
  );
  if (!r.body?.resolutionId) throw new Error(`resolution failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { key, api, resolutionId: r.body.resolutionId as string };
}

/** One attempt to open an event stream: its status, and the open response to hold when it was accepted. */
async function attemptStream(url: string, path: string, key: string, signal: AbortSignal) {
  const res = await fetch(`${url}${path}`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal,
  });
  if (res.status === 200) {
    // Held open and read (and dropped) until the phase ends.
    void res.body?.pipeTo(new WritableStream()).catch(() => undefined);
  } else await res.arrayBuffer();
  return res.status;
}

/**
 * The inspector-stream flood (issue 21): `readers` clients (default 8) of another organization read GET
 * /api/v2/resolutions/:id, in alternating windows of `windowMs` (default 10 s): quiet ones, and ones in which one key
 * makes attempts to open GET /api/v2/inspector/actors/resolution/:id/stream, one every `gapMs` (default 60, the pace of
 * the issue's report), every accepted stream held open to the end of its window; `attempts` (default 1,000) in all.
 * Alternating windows keep a shared machine's swings in load out of the comparison. The readers' p99 in flooded windows
 * against quiet ones is the row's ratio (target: within 1.5x). The pace is the attack's, not a request flood's: any
 * request, refused or not, costs about one cheap read (~3 ms of CPU here), which the rate limit bounds.
 */
export async function benchStreamFlood(o: {
  url: string;
  platformKey: string;
  raw: RawBaseline;
  readers?: number;
  attempts?: number;
  gapMs?: number;
  windowMs?: number;
  log: (line: string) => void;
}): Promise<StreamFloodResult> {
  const readers = o.readers ?? 8;
  const attempts = o.attempts ?? 1000;
  const gapMs = o.gapMs ?? 60;
  const windowMs = o.windowMs ?? 10_000;
  const perWindow = Math.max(1, Math.floor(windowMs / gapMs));
  const windows = Math.ceil(attempts / perWindow);
  const attacker = await organizationWithResolution(o.url, o.platformKey, 'stream-flood');
  const reader = await organizationWithResolution(o.url, o.platformKey, 'stream-readers');
  const readPath = `/api/v2/resolutions/${reader.resolutionId}`;
  const streamPath = `/api/v2/inspector/actors/resolution/${attacker.resolutionId}/stream`;
  const read = () =>
    runClosedLoop({
      concurrency: readers,
      durationMs: windowMs,
      task: async () => {
        const t0 = performance.now();
        const r = await reader.api.get(readPath);
        return r.status === 200 ? performance.now() - t0 : 'fail';
      },
    });
  const pooled = () => ({ latencies: [] as number[], failures: 0, elapsedMs: 0 });
  const quietRuns = pooled();
  const floodRuns = pooled();
  const add = (into: ReturnType<typeof pooled>, r: Awaited<ReturnType<typeof read>>) => {
    into.latencies.push(...r.latencies);
    into.failures += r.failures;
    into.elapsedMs += r.elapsedMs;
  };
  const statuses: Record<string, number> = {};
  const attemptMs: number[] = [];
  /** `count` attempts, one per gapMs, each accepted stream held until the window ends. */
  const flood = async (count: number, hold: AbortSignal) => {
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const wait = started + i * gapMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(
        (async () => {
          const t0 = performance.now();
          const status = await attemptStream(o.url, streamPath, attacker.key, hold).catch(() => 0);
          attemptMs.push(performance.now() - t0);
          statuses[status] = (statuses[status] ?? 0) + 1;
        })(),
      );
    }
    await Promise.all(inFlight);
  };
  // Warm-up (not measured).
  await runClosedLoop({
    concurrency: readers,
    durationMs: 2000,
    task: async () => (await reader.api.get(readPath), 0),
  });
  o.log(
    `stream flood: ${readers} clients read ${readPath}; ${windows} quiet and ${windows} flooded windows of ${windowMs / 1000} s, alternating; ${attempts} stream attempts of one key in all, one per ${gapMs} ms`,
  );
  let left = attempts;
  for (let w = 0; w < windows; w++) {
    add(quietRuns, await read());
    const hold = new AbortController();
    const count = Math.min(perWindow, left);
    left -= count;
    const attack = flood(count, hold.signal);
    add(floodRuns, await read());
    await attack;
    hold.abort();
    // The held streams' places are given back before the next quiet window.
    await new Promise((r) => setTimeout(r, 200));
  }
  const summary = (r: ReturnType<typeof pooled>) => ({
    perSecond: r.latencies.length / (r.elapsedMs / 1000),
    latency: latencyStats(r.latencies),
    failures: r.failures,
  });
  const quiet = summary(quietRuns);
  const flooded = summary(floodRuns);
  const attemptLatency = latencyStats(attemptMs);
  const p99Ratio = flooded.latency.p99 / quiet.latency.p99;
  const statusText = Object.entries(statuses)
    .map(([st, n]) => `${n} x ${st === '0' ? 'no answer' : st}`)
    .join(', ');
  o.log(`  quiet: ${perSec(quiet.perSecond)} reads, p50 ${ms(quiet.latency.p50)}, p99 ${ms(quiet.latency.p99)}`);
  o.log(
    `  flooded: ${perSec(flooded.perSecond)} reads, p50 ${ms(flooded.latency.p50)}, p99 ${ms(flooded.latency.p99)} (${p99Ratio.toFixed(2)}x); attempts: ${statusText}, answered p50/p99 ${ms(attemptLatency.p50)}/${ms(attemptLatency.p99)}`,
  );
  const rows: BenchRow[] = [
    {
      id: 'streams.reads.quiet',
      group: 'streams',
      label: `GET /api/v2/resolutions/:id, ${readers} clients, no streams (${windows} x ${windowMs / 1000} s)`,
      rate: quiet.perSecond,
      unit: 'reads',
      p50: quiet.latency.p50,
      p99: quiet.latency.p99,
      ...shareOfRaw(o.raw, quiet.perSecond, readers),
      answers: `${quiet.failures} failed`,
    },
    {
      id: 'streams.reads.flooded',
      group: 'streams',
      label: `  the same while one key makes inspector stream attempts, 1 per ${gapMs} ms (${attempts} in all)`,
      rate: flooded.perSecond,
      unit: 'reads',
      p50: flooded.latency.p50,
      p99: flooded.latency.p99,
      ...shareOfRaw(o.raw, flooded.perSecond, readers),
      answers: `p99 ${p99Ratio.toFixed(2)}x without; ${flooded.failures} failed; attempts ${statusText} (10 open per window at most), answered p50/p99 ${ms(attemptLatency.p50)}/${ms(attemptLatency.p99)}`,
    },
  ];
  return { rows, quiet, flooded, attempts, attemptStatuses: statuses, attemptLatency, p99Ratio };
}
