import { computeResolution, type ResolutionOutcome } from '../../domain/resolution/compute-resolution.js';
import { optionReason } from '../../domain/ranking/option-reason.js';
import type { RankingPreferences } from '../../domain/ranking/rank-options.js';
import type { Caller } from '../caller.js';
import type { ResolutionInputs } from './gather-resolution-inputs.js';
import type { ResolutionRequest } from './resolution-request.js';

/** A computed resolution: the domain outcome and, unless the request was refused, its REST answer. */
export type ResolutionDecision =
  | { refused: true; outcome: ResolutionOutcome }
  | { refused: false; outcome: ResolutionOutcome; response: ReturnType<typeof shapeResponse> };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Computes a resolution from its gathered inputs, without I/O: the same inputs and ids give the same answer.
 * `ids` names the resolution and makes option ids; `expiresAt` is the resolution's deadline. Refused when no provider
 * holds a license in the requested regions (the caller answers LICENSE_REGION_MISMATCH).
 */
export function decideResolution(
  inputs: ResolutionInputs,
  caller: Caller,
  req: ResolutionRequest,
  ids: { resolutionId: string; newOptionId: () => string },
  expiresAt: Date,
): ResolutionDecision {
  const { graph, now } = inputs;
  const outcome = computeResolution({
    index: graph.eligibilityIndex,
    offering: inputs.offering,
    screened: inputs.screened,
    servicesOfSlug: inputs.servicesOfSlug,
    schedulesByProvider: graph.schedulesByProvider,
    constraints: req.constraints,
    preferences: req.preferences,
    window: inputs.window,
    maxOptionsPerProvider: req.maxOptionsPerProvider,
    policy: inputs.policy,
    now,
    busyByProvider: inputs.busy,
    feedByProvider: inputs.feeds,
    workloadByProvider: inputs.workload,
    continuityProviderIds: inputs.continuityProviderIds,
    allowUnverifiable: inputs.allowUnverifiable,
  });
  if (outcome.licenseRegionRejected) return { refused: true, outcome };
  const response = shapeResponse({
    id: ids.resolutionId,
    newOptionId: ids.newOptionId,
    caller,
    now,
    expiresAt,
    graphVersion: graph.graphVersion,
    policy: { id: inputs.policy.id, version: inputs.policy.version ?? 1 },
    outcome,
    preferences: req.preferences,
  });
  return { refused: false, outcome, response };
}

/** Builds the REST answer of a resolution from its outcome. */
function shapeResponse(p: {
  id: string;
  newOptionId: () => string;
  caller: Caller;
  now: Date;
  expiresAt: Date;
  graphVersion: number;
  policy: { id: string; version: number };
  outcome: ResolutionOutcome;
  preferences: RankingPreferences;
}) {
  const { outcome, now } = p;
  const optionWarnings = new Map<string, { code: string; message: string; providerId: string; field: string }[]>();
  const warnings: { code: string; message: string; providerId?: string; field?: string }[] = [];
  const options = outcome.options.map((o) => {
    const w: { code: string; message: string; providerId: string; field: string }[] = o.warnings.map((x) => ({
      code: x.code,
      message: x.message,
      providerId: x.providerId,
      field: x.field,
    }));
    optionWarnings.set(o.providerId, w);
    if (o.availabilityStatus === 'unverifiable')
      w.push({
        code: 'AVAILABILITY_UNVERIFIABLE',
        message: 'The provider’s calendar could not be checked; confirm the time with the provider.',
        providerId: o.providerId,
        field: 'availabilityStatus',
      });
    return {
      optionId: p.newOptionId(),
      rank: o.rank,
      provider: { id: o.provider.id, externalId: o.provider.externalId, displayName: o.provider.displayName },
      service: { id: o.service.id, displayName: o.service.title, durationMinutes: o.service.duration },
      slot: { start: iso(o.slot.start), end: iso(o.slot.end), timezone: o.slot.timezone },
      availabilityStatus: o.availabilityStatus,
      availabilityCheckedAt: now.toISOString(),
      score: o.score,
      matchedConstraints: o.eligibility.matchedConstraints.map((m) => ({
        code: m.code,
        field: m.field,
        status: m.status,
        required: [...m.required],
        actual: [...m.actual],
        sourceStatus: m.sourceStatus,
      })),
      rankingFactors: o.rankingFactors.map((f) => ({ code: f.code, points: f.points })),
      reason: optionReason(
        o,
        { ...o.provider, timezone: o.provider.timezone ?? o.slot.timezone },
        o.eligibility.matchedConstraints,
        p.preferences,
      ),
      warnings: w,
    };
  });
  const seen = new Set<string>();
  for (const list of optionWarnings.values())
    for (const w of list) {
      const k = `${w.code}|${w.providerId}`;
      if (!seen.has(k)) {
        seen.add(k);
        warnings.push(w);
      }
    }
  const resolved = options.length > 0;
  return {
    resolutionId: p.id,
    status: resolved ? 'resolved' : 'zero_results',
    requestId: p.caller.requestId,
    organizationId: p.caller.organizationId,
    policy: p.policy,
    providerGraphVersion: p.graphVersion,
    createdAt: now.toISOString(),
    expiresAt: p.expiresAt.toISOString(),
    summary: outcome.summary,
    options,
    exclusionSummary: outcome.exclusionSummary,
    warnings,
    ...(resolved
      ? {}
      : {
          totalProviders: outcome.summary.providersScanned,
          evaluatedSlots: outcome.summary.evaluatedSlots,
          zeroResultReasons: outcome.zeroResultReasons,
        }),
  };
}
