import type { ApiSeedResult } from './api-seed-bench.js';
import type { NetworkAdequacyResult } from './network-adequacy-bench.js';
import type { ScenarioMeasurement } from './measure-scenario.js';
import type { OverloadResult } from './overload-bench.js';
import { baselineFor, type RawBaseline } from './raw-baseline.js';
import { ms, percent, perSec } from './report-table.js';
import { serverErrorCount, type StatusCounts } from './response-tally.js';
import type { StreamFloodResult } from './stream-flood-bench.js';
import type { WebhookBenchResult } from './webhook-bench.js';

/** How a target's figure is printed (and its spread over runs, by `npm run bench:summary`). */
export type FigureKind = 'share' | 'ms' | 'rate' | 'count' | 'ratio' | 'mb';

/** One target checked against a run: `met` is undefined when it does not apply to this run's configuration. */
export interface TargetCheck {
  /** Stable key across runs (`clinic.share`). */
  id: string;
  /** Where it is stated (`issue 22`). */
  issue: string;
  target: string;
  /** The figure the target is judged on, and how it prints. */
  value: number;
  kind: FigureKind;
  /** What was measured, as printed (the figure with what it was read from). */
  measured: string;
  met: boolean | undefined;
}

/** Prints a target's figure. */
export function formatFigure(value: number, kind: FigureKind): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (kind === 'share') return percent(value);
  if (kind === 'ms') return ms(value);
  if (kind === 'rate') return perSec(value);
  if (kind === 'ratio') return `${value.toFixed(2)}x`;
  if (kind === 'mb') return `${value.toFixed(0)} MB`;
  return String(value);
}

/** A list of checked targets and the function that adds one (measured defaults to the formatted figure). */
function targetList() {
  const checks: TargetCheck[] = [];
  const add = (
    id: string,
    issue: string,
    target: string,
    value: number,
    kind: FigureKind,
    met: boolean | undefined,
    measured = formatFigure(value, kind),
  ) => {
    checks.push({ id, issue, target, value, kind, measured, met });
  };
  return { checks, add };
}

/** The runs a target is judged on (platform path, 10,000 providers unless said). */
export interface TargetInputs {
  raw: RawBaseline;
  /** ~10% eligible, 8 and 1 clients. */
  mix10c8: ScenarioMeasurement;
  mix10c1: ScenarioMeasurement;
  /** The broad clinic question at 8 clients. */
  clinic: ScenarioMeasurement;
  /** ~10% eligible at 8 clients on the organization seeded call by call (`apiSeed.providerCount` providers). */
  apiSeededOrg: ScenarioMeasurement;
  apiSeed: ApiSeedResult;
  /** GET resolution at 32 clients before and after the overload phases. */
  readsBefore: ScenarioMeasurement;
  readsAfter: ScenarioMeasurement;
  healthz: ScenarioMeasurement;
  /** GET /api/v2/organizations/:id at 1 client: over REST (platform key + header), and GetOrganization over gRPC. */
  orgGetRest: ScenarioMeasurement;
  orgGetGrpc: ScenarioMeasurement;
  bursts: readonly ScenarioMeasurement[];
  bookingLoop: ScenarioMeasurement;
  contention: ScenarioMeasurement;
  overload: OverloadResult;
  streams: StreamFloodResult;
  webhooks: WebhookBenchResult;
  /** GET network adequacy per dimension over the seeded resolutions (issue 24). */
  adequacy: NetworkAdequacyResult;
  /** Every phase's answers but those of the 4x overload phases (which refuse by design), by phase name. */
  ordinaryStatuses: Record<string, StatusCounts>;
  /** Peak RSS (MB) of the service over the 10,000-provider scenarios. */
  serviceRssPeakMb: number;
}

/** 503 answers of a measurement, its warm-up and preparation included. */
function refusalsOf(m: ScenarioMeasurement): number {
  return (m.statuses.byStatus['503'] ?? 0) + (m.prepStatuses.byStatus['503'] ?? 0);
}

/**
 * Checks the targets of issues 22, 21 and 11 ("Benchmark"): throughputs as a share of the raw node:http baseline of
 * the same run at the same client count; where issue 22 restates an issue-11 target (reads, round trips, hold +
 * confirm, 409s), issue 22's figure is the one checked.
 */
export function checkTargets(t: TargetInputs): TargetCheck[] {
  const share = (m: ScenarioMeasurement) => m.perSecond / baselineFor(t.raw, m.concurrency).perSecond;
  const shareText = (m: ScenarioMeasurement) =>
    `${perSec(m.perSecond)} = ${percent(share(m))} of raw@${baselineFor(t.raw, m.concurrency).concurrency}`;
  const { checks, add } = targetList();

  // No 503 for ordinary load.
  const no503 = (id: string, what: string, m: ScenarioMeasurement) => {
    const n = refusalsOf(m);
    add(
      id,
      'issue 22',
      `no 503: ${what}`,
      n,
      'count',
      n === 0,
      `${n} x 503 of ${m.statuses.total + m.prepStatuses.total}`,
    );
  };
  no503('no503.resolutions.c8', '8 clients of resolutions (~10%)', t.mix10c8);
  no503('no503.reads.c32', '32 clients of GET resolution (before the overload phases)', t.readsBefore);
  no503('no503.reads.c32.after', '32 clients of GET resolution (after the overload phases)', t.readsAfter);
  no503('no503.overload.1x', 'the 1x phase of the overload scenario (8 clients, ~10%)', t.overload.at1x.measurement);
  for (const b of t.bursts)
    no503(`no503.burst.c${b.concurrency}`, `a burst of ${b.concurrency} resolutions on an idle service`, b);
  const s = t.apiSeed;
  add(
    'no503.api-seed.lost-writes',
    'issue 22',
    `seeding ${s.providerCount} providers call by call (${s.clients} clients obeying Retry-After, ${s.retries} retries): no write lost`,
    s.lostWrites,
    'count',
    s.lostWrites === 0 && s.providersReadBack === s.providerCount,
    `${s.lostWrites} of ${s.writes} lost ${JSON.stringify(s.lostByKind)}; ${s.refusals} x 503 waited out; ${s.providersReadBack} providers read back`,
  );
  const with5xx = Object.entries(t.ordinaryStatuses).filter(([, c]) => serverErrorCount(c) > 0);
  const total5xx = with5xx.reduce((sum, [, c]) => sum + serverErrorCount(c), 0);
  add(
    'no5xx.overall',
    'issue 22',
    'no 5xx in any phase but the 4x overload phases (seeding, bursts and warm-ups included)',
    total5xx,
    'count',
    total5xx === 0,
    total5xx === 0 ? '0' : `${total5xx} in ${with5xx.map(([k]) => k).join(', ')}`,
  );

  // Resolutions.
  const c = t.clinic;
  add(
    'clinic.share',
    'issue 22',
    'broad clinic question, 8 clients: >= 0.3% of raw@8',
    share(c),
    'share',
    share(c) >= 0.003,
    shareText(c),
  );
  add(
    'clinic.p99',
    'issue 22',
    'broad clinic question, 8 clients: p99 <= 150 ms',
    c.latency.p99,
    'ms',
    c.latency.p99 <= 150,
  );
  add(
    'clinic.pg-cpu',
    'issue 22',
    'broad clinic question: PostgreSQL CPU per resolution <= 5 ms',
    c.cpuMsPerRequest.postgres,
    'ms',
    c.cpuMsPerRequest.postgres <= 5,
  );
  add(
    'mix10.share',
    'issue 22',
    '~10% eligible, 8 clients: >= 0.6% of raw@8',
    share(t.mix10c8),
    'share',
    share(t.mix10c8) >= 0.006,
    shareText(t.mix10c8),
  );
  const org = t.apiSeededOrg;
  add(
    'org1000.share',
    'issue 22',
    `~10% eligible, 8 clients, an organization of 1,000 providers (here ${s.providerCount}): >= 1% of raw@8`,
    share(org),
    'share',
    s.providerCount === 1000 ? share(org) >= 0.01 : undefined,
    shareText(org),
  );
  add(
    'mix10.p99',
    'issue 11',
    '~10% eligible, 8 clients: p99 <= 100 ms',
    t.mix10c8.latency.p99,
    'ms',
    t.mix10c8.latency.p99 <= 100,
  );
  add(
    'mix10.c1.p50',
    'issue 11',
    '~10% eligible, 1 client: p50 <= 10 ms',
    t.mix10c1.latency.p50,
    'ms',
    t.mix10c1.latency.p50 <= 10,
  );

  // Reads, health, booking.
  add(
    'reads.share',
    'issue 22',
    'GET resolution, 32 clients: >= 3% of raw@32 (before the overload phases)',
    share(t.readsBefore),
    'share',
    share(t.readsBefore) >= 0.03,
    shareText(t.readsBefore),
  );
  add(
    'reads.share.after',
    'issue 22',
    'GET resolution, 32 clients: >= 3% of raw@32 (after the overload phases)',
    share(t.readsAfter),
    'share',
    share(t.readsAfter) >= 0.03,
    shareText(t.readsAfter),
  );
  add(
    'healthz.share',
    'issue 22',
    `GET /healthz, ${t.healthz.concurrency} clients: >= 40% of raw@${t.healthz.concurrency}`,
    share(t.healthz),
    'share',
    share(t.healthz) >= 0.4,
    shareText(t.healthz),
  );
  const loop = t.bookingLoop;
  add(
    'booking.rate',
    'issue 22',
    'resolve + hold + confirm, 8 clients: >= 50 round trips/s',
    loop.perSecond,
    'rate',
    loop.perSecond >= 50,
  );
  const hc = Number(loop.notes.holdConfirmP99);
  add('booking.hold-confirm.p99', 'issue 22', 'hold + confirm: p99 <= 100 ms', hc, 'ms', hc <= 100);
  const n = t.contention.notes;
  add(
    'contention.winners',
    'issue 22',
    `${t.contention.concurrency} confirms on one slot: exactly one winner, one booking`,
    Number(n.wins),
    'count',
    n.wins === 1 && n.bookingsAtSlot === 1 && Number(n.conflicts) === t.contention.concurrency - 1,
    `${n.wins} winner(s), ${n.conflicts} x 409, ${n.bookingsAtSlot} booking(s) at the slot`,
  );
  add(
    'contention.409.p99',
    'issue 22',
    'contention: 409 p99 <= 50 ms',
    Number(n.conflictP99),
    'ms',
    Number(n.conflictP99) <= 50,
  );

  checks.push(orgGetTarget(t.raw, t.orgGetRest, t.orgGetGrpc));
  checks.push(...adequacyTargets(t.adequacy));
  checks.push(...overloadTargets(t.overload));

  // Issue 21, webhooks (issue 12), memory (issue 11).
  const st = t.streams;
  add(
    'streams.p99-ratio',
    'issue 21',
    `readers' p99 while one key makes ${st.attempts} inspector stream attempts (the issue: 1,000): within 1.5x of without`,
    st.p99Ratio,
    'ratio',
    st.p99Ratio <= 1.5,
    `${ms(st.flooded.latency.p99)} vs ${ms(st.quiet.latency.p99)} (${st.p99Ratio.toFixed(2)}x)`,
  );
  const w = t.webhooks;
  add(
    'webhooks.rate',
    'issue 12',
    'webhook delivery >= 500 events/s with the service answering reads',
    w.throughput.perSecond,
    'rate',
    w.throughput.perSecond >= 500,
  );
  add(
    'webhooks.fairness.p99',
    'issue 12',
    "another organization's webhook latency p99 < 1 s while one receiver hangs",
    w.fairness.p99Ms,
    'ms',
    w.fairness.p99Ms < 1000,
  );
  add(
    'rss.peak',
    'issue 11',
    'service RSS <= 400 MB (10,000 providers)',
    t.serviceRssPeakMb,
    'mb',
    t.serviceRssPeakMb <= 400,
  );
  return checks;
}

/**
 * The REST gateway's own cost (issue 23): `GET /api/v2/organizations/:id` over REST within 1.3x of GetOrganization
 * called directly over gRPC, each read as a share of the raw baseline at the same client count (a request over REST
 * takes at most 1.3 times as long as over gRPC).
 */
export function orgGetTarget(raw: RawBaseline, rest: ScenarioMeasurement, grpc: ScenarioMeasurement): TargetCheck {
  const { checks, add } = targetList();
  const shareOf = (m: ScenarioMeasurement) => m.perSecond / baselineFor(raw, m.concurrency).perSecond;
  const ratio = shareOf(grpc) / shareOf(rest);
  add(
    'org-get.rest-vs-grpc',
    'issue 23',
    `GET /api/v2/organizations/:id, platform, ${rest.concurrency} client(s): REST within 1.3x of gRPC GetOrganization`,
    ratio,
    'ratio',
    ratio <= 1.3,
    `REST ${percent(shareOf(rest))} vs gRPC ${percent(shareOf(grpc))} of raw@${baselineFor(raw, rest.concurrency).concurrency} (${ratio.toFixed(2)}x)`,
  );
  return checks[0]!;
}

/** The network adequacy target (issue 24): every dimension read under 200 ms (p99) over the seeded resolutions. */
export function adequacyTargets(r: NetworkAdequacyResult): TargetCheck[] {
  const { checks, add } = targetList();
  const all = [...r.byDimension.entries()];
  const [worstDim, worst] = all.reduce((a, b) => (b[1].latency.p99 > a[1].latency.p99 ? b : a));
  add(
    'network-adequacy.p99',
    'issue 24',
    `GET /api/v2/analytics/network-adequacy over ${r.seed.resolutions} resolutions: p99 < 200 ms for every dimension`,
    worst.latency.p99,
    'ms',
    worst.latency.p99 < 200 && all.every(([, m]) => m.failures === 0),
    `worst ${worstDim}: p50 ${ms(worst.latency.p50)}, p99 ${ms(worst.latency.p99)} (${all.map(([d, m]) => `${d} ${ms(m.latency.p99)}`).join(', ')})`,
  );
  return checks;
}

/** The overload targets (issue 22): admitted p99 at 4x within 2x of 1x, refusals answered in < 5 ms, no 500. */
export function overloadTargets(o: OverloadResult): TargetCheck[] {
  const { checks, add } = targetList();
  const p99 = (p: OverloadResult['at1x']) => ms(p.measurement.latency.p99);
  add(
    'overload.p99-ratio',
    'issue 22',
    'overload, 4x clients waiting Retry-After: admitted p99 <= 2x the 1x p99',
    o.p99Ratio,
    'ratio',
    o.p99Ratio <= 2,
    `${p99(o.at4x)} / ${p99(o.at1x)} = ${o.p99Ratio.toFixed(2)}x`,
  );
  add(
    'overload.p99-ratio.at-once',
    'issue 22',
    'overload, 4x clients sending again at once: admitted p99 <= 2x the 1x p99',
    o.p99RatioAtOnce,
    'ratio',
    o.p99RatioAtOnce <= 2,
    `${p99(o.at4xAtOnce)} / ${p99(o.at1x)} = ${o.p99RatioAtOnce.toFixed(2)}x`,
  );
  for (const p of [o.at4x, o.at4xAtOnce]) {
    const r = p.refusedLatency.p99;
    add(
      `overload.refusal-p99${p.name === '4x' ? '' : '.at-once'}`,
      'issue 22',
      `overload, 4x clients ${p.name === '4x' ? 'waiting Retry-After' : 'sending again at once'}: refusals answered in < 5 ms (p99)`,
      r,
      'ms',
      p.refused === 0 ? undefined : r < 5,
      p.refused === 0
        ? 'nothing refused'
        : `${ms(r)} over ${p.refused} refusals; goodput ${perSec(p.measurement.perSecond)}`,
    );
  }
  add(
    'overload.no500',
    'issue 22',
    'overload: no 500 answered (1x, 4x, warm-ups)',
    o.internalErrors,
    'count',
    o.internalErrors === 0,
  );

  return checks;
}

/** The line of one checked target: met, MISSED or n/a, the target, what was measured. */
export function targetLine(t: TargetCheck): string {
  const verdict = t.met === undefined ? 'n/a   ' : t.met ? 'met   ' : 'MISSED';
  return `${verdict}  [${t.issue}] ${t.target}: ${t.measured}`;
}
