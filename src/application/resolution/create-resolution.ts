import { ServiceError } from '../../errors/service-error.js';
import { parseDateRange } from '../../domain/availability/date-window.js';
import { newId, randomHex } from '../../persistence/new-id.js';
import { phaseTimer } from '../../observability/phase-timer.js';
import type { Caller } from '../caller.js';
import { commitResolution } from './commit-resolution.js';
import { decideResolution } from './decide-resolution.js';
import { gatherResolutionInputs } from './gather-resolution-inputs.js';
import { planResolutionWrites } from './plan-resolution-writes.js';
import type { ResolutionDeps } from './resolution-deps.js';
import type { ResolutionRequest } from './resolution-request.js';

/**
 * What a resolution uses: most of the runtime (the ledger, the clock, the configured TTL, the phase metrics, the
 * provider graphs and calendar feeds it reads, the records, actors and review hand-off it writes), so a named pick.
 */
export type CreateResolutionDeps = Pick<
  ResolutionDeps,
  'db' | 'clock' | 'config' | 'metrics' | 'orgGraphs' | 'feeds' | 'records' | 'actors' | 'reviewHandOff'
>;

/**
 * Runs a resolution end to end (CONTRACT part 4) and stores it; returns its REST answer. Four steps: gather the
 * inputs (reads only), decide (pure), plan the writes (pure), commit them.
 */
export async function createResolution(
  deps: CreateResolutionDeps,
  caller: Caller,
  req: ResolutionRequest,
): Promise<Record<string, any>> {
  const range = parseDateRange(req.dateRange);
  if (!range.ok) throw new ServiceError('INVALID_DATE_RANGE', range.problem.message, { field: range.problem.field });
  const inputs = await gatherResolutionInputs(deps, caller, req, range.window);
  const phase = phaseTimer(deps.metrics.resolutionPhase);
  const ids = { resolutionId: newId('res', inputs.now.getTime()), newOptionId: () => `opt_${randomHex(8)}` };
  const expiresAt = new Date(inputs.now.getTime() + deps.config.resolutionTtlSeconds * 1000);
  const decision = decideResolution(inputs, caller, req, ids, expiresAt);
  phase('compute');
  const plan = planResolutionWrites(inputs, caller, req, decision, ids, expiresAt);
  await commitResolution(deps, ids.resolutionId, inputs.graph, plan);
  if (decision.refused)
    throw new ServiceError(
      'LICENSE_REGION_MISMATCH',
      'No provider holds an active, unexpired, verified license in the requested regions.',
      { field: 'constraints.licenseRegionCodes' },
    );
  phase('store');
  return decision.response;
}
