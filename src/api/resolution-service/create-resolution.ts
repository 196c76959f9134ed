import type { CreateResolutionRequest, CreateResolutionResponse } from '../../gen/scheduling/v1/resolution_service.js';
import type { ResolutionConstraints } from '../../gen/scheduling/v1/resources.js';
import { CreateResolutionBody, V1_CONSTRAINT_NAMES } from '../../contract/schemas/resolution.js';
import type { Caller } from '../../application/caller.js';
import type { TypedAnswer, TypedCall } from '../../application/operation.js';
import { optionalIdempotencyKey, requireIdempotencyKey } from '../../application/idempotency.js';
import { withIdempotency } from '../../application/with-idempotency.js';
import {
  createResolution as runResolution,
  type CreateResolutionDeps as RunResolutionDeps,
} from '../../application/resolution/create-resolution.js';
import { resolutionRequestOfV2 } from '../../application/resolution/resolution-request-of-v2.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { RequestProblems, given } from '../request-problems.js';
import { constraintsGiven, preferencesGiven } from '../care-service/resolution-input.js';
import { resolutionMessage } from '../messages/resolution-message.js';
import { dateRangeGiven, typedAnswerOf } from './resolution-body.js';

/** What CreateResolution uses: the resolution pipeline's (most of the runtime) and the idempotency store. */
export type CreateResolutionDeps = RunResolutionDeps & Pick<ResolutionDeps, 'idempotency'>;

const RULES = CreateResolutionBody.shape;

/** The v1 name of each constraint list that has one (v1 constraints are plain lists; the others kept their name). */
const V1_LIST_NAMES = {
  ...V1_CONSTRAINT_NAMES,
  ageGroupCodes: 'ageGroupCodes',
  serviceRegionCodes: 'serviceRegionCodes',
  licenseRegionCodes: 'licenseRegionCodes',
} as const;

/**
 * The payload a v1 Idempotency-Key is compared by, as v1 keys always were: the body as v1 spelled it (`service`, each
 * constraint a plain list under its v1 name, an empty one not given), so a key used before v1 was mapped onto
 * CreateResolution still replays its answer.
 */
function v1Payload(request: CreateResolutionRequest) {
  const c: ResolutionConstraints | undefined = request.constraints;
  let constraints: Record<string, unknown> | undefined;
  if (c) {
    constraints = {};
    for (const [key, v1] of Object.entries(V1_LIST_NAMES)) {
      const list = c[key as keyof typeof V1_LIST_NAMES]?.anyOf;
      if (list?.length) constraints[v1] = list;
    }
    if (c.acceptsNewClients !== undefined) constraints.acceptsNewClients = c.acceptsNewClients;
  }
  return {
    service: given(request.serviceId),
    constraints,
    preferences: preferencesGiven(request.preferences),
    dateRange: dateRangeGiven(request.dateRange),
    maxOptionsPerProvider: request.maxOptionsPerProvider,
  };
}

/**
 * CreateResolution (POST /api/v2/resolutions, and its v1 form POST /api/v1/resolutions with `v1Rules`): resolves a
 * service's request into ranked, bookable options under an Idempotency-Key (a replay with the same payload answers the
 * first resolution, `Idempotent-Replayed`). The key is required, except under the v1 rules, which also take the
 * service by its slug.
 */
export async function createResolution(
  deps: CreateResolutionDeps,
  caller: Caller,
  request: CreateResolutionRequest,
  call: TypedCall,
): Promise<TypedAnswer<CreateResolutionResponse>> {
  const v1 = request.v1Rules === true;
  const key = v1 ? optionalIdempotencyKey(call.headers) : requireIdempotencyKey(call.headers);
  const problems = new RequestProblems();
  // The body as REST spelled it: judged member by member with the contract's rules, and hashed for the key.
  const body = {
    serviceId: given(request.serviceId),
    constraints: constraintsGiven(request.constraints),
    preferences: preferencesGiven(request.preferences),
    dateRange: dateRangeGiven(request.dateRange),
    policyId: request.policyId,
    maxOptionsPerProvider: request.maxOptionsPerProvider,
  };
  const checked = {
    serviceId: problems.check('serviceId', RULES.serviceId, body.serviceId),
    constraints: problems.check('constraints', RULES.constraints, body.constraints),
    preferences: problems.check('preferences', RULES.preferences, body.preferences),
    dateRange: problems.check('dateRange', RULES.dateRange, body.dateRange),
    policyId: problems.check('policyId', RULES.policyId, body.policyId),
    maxOptionsPerProvider: problems.check(
      'maxOptionsPerProvider',
      RULES.maxOptionsPerProvider,
      body.maxOptionsPerProvider,
    ),
  };
  problems.throwIfAny();
  const req = {
    ...resolutionRequestOfV2(checked as Parameters<typeof resolutionRequestOfV2>[0]),
    acceptSlug: v1,
  };
  if (!key) return typedAnswerOf({ result: await runResolution(deps, caller, req), headers: {} }, answerOf);
  const out = v1
    ? await withIdempotency(deps.idempotency, caller, 'v1-resolutions', key, v1Payload(request), () =>
        runResolution(deps, caller, req),
      )
    : await withIdempotency(deps.idempotency, caller, 'resolutions', key, body, () => runResolution(deps, caller, req));
  return typedAnswerOf(out, answerOf);
}

const answerOf = (r: Parameters<typeof resolutionMessage>[0]): CreateResolutionResponse => ({
  resolution: resolutionMessage(r),
});
