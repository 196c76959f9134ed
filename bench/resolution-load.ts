import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchClient, BenchResponse } from './bench-client.js';
import type { GrpcResolutionClient } from './grpc-resolution-client.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { resolutionBody, type ConstraintMix } from './resolution-requests.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

/** Creates one resolution by some path (REST with a key, gRPC direct) and answers like the HTTP client. */
export type ResolutionCaller = (body: Record<string, unknown>) => Promise<BenchResponse>;

/** POST /api/v2/resolutions through the gateway with the client's key and headers, a fresh Idempotency-Key each. */
export function httpResolutionCaller(api: BenchClient): ResolutionCaller {
  return (body) => api.post('/api/v2/resolutions', body, { 'idempotency-key': randomUUID() });
}

/** CreateResolution on the internal gRPC API, a fresh idempotency key each. */
export function grpcResolutionCaller(client: GrpcResolutionClient): ResolutionCaller {
  return (body) => client.createResolution(body, randomUUID());
}

/** What a resolution load needs besides the caller. */
export interface ResolutionLoad {
  id: string;
  label: string;
  call: ResolutionCaller;
  mix: ConstraintMix;
  rnd: SeededRandom;
  serviceIds: readonly string[];
  firstDate: string;
  /** Providers of the organization, to print the eligible share. */
  providerCount: number;
  concurrency: number;
  durationMs: number;
  warmupMs?: number;
  /**
   * Each client starts a request at most every `paceMs` (it waits out the rest after an answer): a fixed offered rate
   * of `concurrency x 1000 / paceMs` per second while the service keeps up, instead of a closed loop at saturation.
   */
  paceMs?: number;
}

/**
 * Loads resolution creation (14-day windows, bodies of `mix`) from `concurrency` clients; notes the achieved mean
 * `summary.eligibleProviders` (and its share of the organization), evaluated slots and options per resolution.
 */
export async function benchResolutions(o: ResolutionLoad, ctx: MeasureContext): Promise<ScenarioMeasurement> {
  let n = 0;
  let eligible = 0;
  let slots = 0;
  let options = 0;
  let zero = 0;
  const m = await measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: o.concurrency,
      durationMs: o.durationMs,
      warmupMs: o.warmupMs,
      task: async (_client, phase) => {
        const started = performance.now();
        const res = await o.call(
          resolutionBody(o.mix, o.rnd, { serviceIds: o.serviceIds, from: o.firstDate, days: 14 }),
        );
        if (o.paceMs !== undefined) await sleep(o.paceMs - (performance.now() - started));
        if (res.status !== 200) return 'fail';
        if (phase === 'measure') {
          const s = res.body.summary;
          n++;
          eligible += s.eligibleProviders;
          slots += s.evaluatedSlots;
          options += s.optionsReturned;
          if (res.body.status !== 'resolved') zero++;
        }
        return res.ms;
      },
    },
    ctx,
  );
  const d = n || 1;
  m.notes = {
    mix: o.mix.id,
    meanEligibleProviders: eligible / d,
    eligibleShare: eligible / d / o.providerCount,
    meanEvaluatedSlots: slots / d,
    meanOptionsReturned: options / d,
    zeroResults: zero,
  };
  return m;
}

/** Times one resolution (e.g. the first after a restart, which loads the organization's graph); throws unless 200. */
export async function timeOneResolution(
  call: ResolutionCaller,
  body: Record<string, unknown>,
  what: string,
): Promise<{ ms: number; eligibleProviders: number }> {
  const r = await call(body);
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  return { ms: r.ms, eligibleProviders: r.body.summary.eligibleProviders };
}
