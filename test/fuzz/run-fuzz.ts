import http from 'node:http';
import fc from 'fast-check';
import type { TestService } from '../helpers/test-service.js';
import { fingerprintChanges, storeFingerprint, type StoreFingerprint } from '../helpers/store-fingerprint.js';
import { REVIEW_STREAM } from '../../src/persistence/review-queue.js';
import { describeRequest, type FuzzRequest } from './fuzz-request.js';
import { createFuzzFixtures } from './fuzz-fixtures.js';
import { operationsOf } from './fuzz-operations.js';
import { fuzzRequest, sweepRequests } from './fuzz-requests.js';
import { materialize, sendWire, type FuzzAnswer } from './send-fuzz-request.js';
import { judgeAnswer } from './judge-answer.js';

/** Something a fuzz run found: a 5xx, an answer outside the envelope, no answer, or a refused request that changed data. */
export interface FuzzFinding {
  kind: '5xx' | 'envelope' | 'no answer' | 'changed';
  problem: string;
  request: string;
  answer: string;
}

/** The counts and findings of a fuzz run. */
export interface FuzzReport {
  seed: number;
  requests: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  /** `METHOD /template` -> status -> count. */
  byRoute: Record<string, Record<string, number>>;
  /** Operations a valid (unmutated) request of which succeeded, and those where none did. */
  succeeded: string[];
  neverSucceeded: string[];
  /** The first refusal of a valid request, by operation (why it did not succeed). */
  validRefusals: Record<string, string>;
  operations: number;
  counts: { '5xx': number; envelope: number; 'no answer': number; changed: number; internalErrors: number };
  findings: FuzzFinding[];
  setupCalls: number;
  quietWaits: number;
  /** Time to build the fixtures, and of the whole run. */
  fixturesMs: number;
  durationMs: number;
}

/**
 * Refusals the contract lets write, by error code, and what they may write: CONTRACT part 4 records the providers
 * with unknown data in manual review "even when the answer is the 422" LICENSE_REGION_MISMATCH (by a worker, within
 * moments: CONTRACT part 7), and the calendar incidents the resolution met go to the events outbox with it.
 */
const REFUSALS_THAT_WRITE: Record<string, string[]> = { LICENSE_REGION_MISMATCH: ['manual_review_entries', 'events'] };

/** The error code of an answer, if it is an error envelope. */
function errorCodeOf(a: FuzzAnswer): string | undefined {
  try {
    return JSON.parse(a.body.toString('utf8'))?.error?.code;
  } catch {
    return undefined;
  }
}

/** Work the workers still have to do: undispatched events, running imports, waitlist offer jobs, due deliveries and due timers. */
async function pendingWork(svc: TestService): Promise<number> {
  const { db, redis } = svc.service.deps;
  const now = svc.clock();
  const busy = (
    await db.query(
      `SELECT (SELECT count(*) FROM events WHERE dispatched_at IS NULL)
    + (SELECT count(*) FROM provider_imports WHERE status IN ('validating', 'processing'))
    + (SELECT count(*) FROM waitlist_offer_jobs)
    + (SELECT count(*) FROM webhook_deliveries d JOIN webhooks w USING (organization_id) WHERE w.active AND d.status IN ('pending', 'failed')
         AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)) AS n`,
      [now],
    )
  ).rows[0].n;
  return (
    Number(busy) +
    Number(await redis.zCount('{timers}:due', '-inf', now.getTime())) +
    Number(await redis.xLen(REVIEW_STREAM.key))
  );
}

/** Waits until the manual-review sightings handed off so far are recorded (the stream is empty), at most ~10 s. */
async function reviewRecorded(svc: TestService): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (Number(await svc.service.deps.redis.xLen(REVIEW_STREAM.key)) === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('fuzz: the manual-review sightings were not recorded within ~10 s');
}

/** Waits until background work is done and the stores hold still (the same fingerprint 25 ms apart), at most ~10 s. */
async function quiet(svc: TestService): Promise<StoreFingerprint> {
  let last: StoreFingerprint | undefined;
  for (let i = 0; i < 400; i++) {
    if ((await pendingWork(svc)) === 0) {
      const fp = await storeFingerprint(svc.service.deps);
      if (last && fingerprintChanges(last, fp).length === 0) return fp;
      last = fp;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('fuzz: the stores did not settle within ~10 s');
}

/** The service's count of INTERNAL_ERROR answers (both doors), to catch one no client saw (a request the client abandoned). */
async function internalErrors(svc: TestService): Promise<number> {
  const m = await svc.service.metrics.errors.get();
  return m.values.filter((v) => v.labels.code === 'INTERNAL_ERROR').reduce((n, v) => n + v.value, 0);
}

/** A short text of an answer for a finding. */
function answerText(a: FuzzAnswer): string {
  if (a.status === 0) return a.failure ?? 'no answer';
  return `${a.status} ${a.body.toString('utf8').slice(0, 300)}`;
}

/**
 * Runs `count` fuzzed requests (first one valid and one mutated request per operation of openapi.json, then a fixed-seed
 * fast-check sample), one at a time, and judges each answer; a refused request (4xx, or no answer) must leave the stores
 * as they were: their fingerprint is taken after every request, and after a success once background work has settled.
 */
export async function runFuzz(
  svc: TestService,
  opts: { count: number; seed: number; progress?: (done: number, report: FuzzReport) => void },
): Promise<FuzzReport> {
  const started = Date.now();
  const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const ops = operationsOf(doc);
  const fixtures = await createFuzzFixtures(svc);
  const fixturesMs = Date.now() - started;
  const sweep = fc.sample(sweepRequests(ops), { seed: opts.seed, numRuns: 1 })[0]!;
  const requests: FuzzRequest[] = [
    ...sweep,
    ...fc.sample(fuzzRequest(ops), { seed: opts.seed + 1, numRuns: Math.max(0, opts.count - sweep.length) }),
  ].slice(0, opts.count);
  const report: FuzzReport = {
    seed: opts.seed,
    requests: 0,
    byKind: {},
    byStatus: {},
    byRoute: {},
    succeeded: [],
    neverSucceeded: [],
    validRefusals: {},
    operations: ops.length,
    counts: { '5xx': 0, envelope: 0, 'no answer': 0, changed: 0, internalErrors: 0 },
    findings: [],
    setupCalls: 0,
    quietWaits: 0,
    fixturesMs,
    durationMs: 0,
  };
  const succeeded = new Set<string>();
  const base = new URL(svc.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const errorsBefore = await internalErrors(svc);
  let baseline = await quiet(svc);
  let dirty = false;
  try {
    for (const r of requests) {
      const fresh = new Map<string, unknown>();
      const setupBefore = fixtures.setupCalls();
      const w = await materialize(r, (name) => fixtures.lookup(name, fresh));
      if (fixtures.setupCalls() !== setupBefore) dirty = true;
      if (dirty) {
        baseline = await quiet(svc);
        report.quietWaits++;
        dirty = false;
      }
      const a = await sendWire(base, agent, w);
      report.requests++;
      report.byKind[r.kind] = (report.byKind[r.kind] ?? 0) + 1;
      const status = a.status === 0 ? 'none' : String(a.status);
      report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
      const route = (report.byRoute[r.operation] ??= {});
      route[status] = (route[status] ?? 0) + 1;
      const found = (kind: FuzzFinding['kind'], problem: string) => {
        report.counts[kind]++;
        report.findings.push({ kind, problem, request: describeRequest(r), answer: answerText(a) });
      };
      for (const v of judgeAnswer(w, a)) found(v.kind, v.problem);
      if (r.kind === 'valid' && !(a.status >= 200 && a.status < 400))
        report.validRefusals[r.operation] ??= answerText(a).slice(0, 200);
      if (a.status >= 200 && a.status < 400) {
        if (r.kind === 'valid') succeeded.add(r.operation);
        // A write may start work that writes later: the next request starts from settled stores. A read changes nothing
        // (the v1 confirmation link, read by GET, confirms).
        if (w.method === 'GET' && !r.operation.endsWith('/confirm'))
          baseline = await storeFingerprint(svc.service.deps);
        else dirty = true;
      } else {
        const allowed = REFUSALS_THAT_WRITE[errorCodeOf(a) ?? ''] ?? [];
        // Manual review is recorded by a worker moments after the answer: what the refusal writes, it has written then.
        if (allowed.includes('manual_review_entries')) await reviewRecorded(svc);
        const after = await storeFingerprint(svc.service.deps);
        const changes = fingerprintChanges(baseline, after);
        const unexpected = changes.filter((c) => !allowed.some((table) => c.startsWith(`${table}:`)));
        if (unexpected.length) found('changed', `a refused request changed ${unexpected.join('; ')}`);
        // What a refusal may write can start work (an event to dispatch): the next request starts from settled stores.
        if (changes.length) dirty = true;
        baseline = after;
      }
      if (opts.progress && report.requests % 500 === 0) opts.progress(report.requests, report);
    }
  } finally {
    agent.destroy();
  }
  report.counts.internalErrors = (await internalErrors(svc)) - errorsBefore;
  report.succeeded = [...succeeded].sort();
  report.neverSucceeded = ops
    .map((o) => o.key)
    .filter((k) => !succeeded.has(k))
    .sort();
  report.setupCalls = fixtures.setupCalls();
  report.durationMs = Date.now() - started;
  return report;
}

/** The report as text: totals, statuses, per route, and every finding (at most `maxFindings`). */
export function formatFuzzReport(r: FuzzReport, maxFindings = 50): string {
  const lines = [
    `fuzz: ${r.requests} requests (seed ${r.seed}) in ${(r.durationMs / 1000).toFixed(1)} s (fixtures ${(r.fixturesMs / 1000).toFixed(1)} s); ${Object.entries(
      r.byKind,
    )
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `by status: ${Object.entries(r.byStatus)
      .sort()
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
    `5xx: ${r.counts['5xx']}, envelope failures: ${r.counts.envelope}, no answer: ${r.counts['no answer']}, refused requests that changed data: ${r.counts.changed}, INTERNAL_ERROR counted by the service: ${r.counts.internalErrors}`,
    `valid requests succeeded on ${r.succeeded.length} of ${r.operations} operations (not on: ${r.neverSucceeded.join(', ') || 'none'}); ${r.setupCalls} setup calls, ${r.quietWaits} waits for settled stores`,
    ...r.neverSucceeded.map((op) => `  ${op}: ${r.validRefusals[op] ?? 'no valid request drawn'}`),
    'by route:',
    ...Object.entries(r.byRoute)
      .sort()
      .map(
        ([route, s]) =>
          `  ${route}: ${Object.entries(s)
            .sort()
            .map(([k, n]) => `${k}×${n}`)
            .join(' ')}`,
      ),
  ];
  if (r.findings.length) {
    lines.push(`findings (${r.findings.length}${r.findings.length > maxFindings ? `, first ${maxFindings}` : ''}):`);
    for (const f of r.findings.slice(0, maxFindings))
      lines.push(`  [${f.kind}] ${f.problem}\n    request: ${f.request}\n    answer: ${f.answer}`);
  }
  return lines.join('\n');
}
