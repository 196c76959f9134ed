import type { CreateResolutionRequest, CreateResolutionResponse } from '../../gen/scheduling/v1/resolution_service.js';
import { CreateResolutionBody } from '../../contract/schemas/resolution.js';
import type { Caller } from '../../application/caller.js';
import type { TypedAnswer, TypedCall } from '../../application/operation.js';
import { requireIdempotencyKey } from '../../application/idempotency.js';
import { withIdempotency } from '../../application/with-idempotency.js';
import { createResolution as runResolution } from '../../application/resolution/create-resolution.js';
import { resolutionRequestOfV2 } from '../../application/resolution/resolution-request-of-v2.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { RequestProblems, given } from '../request-problems.js';
import { constraintsGiven, preferencesGiven } from '../care-service/resolution-input.js';
import { resolutionMessage } from '../messages/resolution-message.js';
import { dateRangeGiven, typedAnswerOf } from './resolution-body.js';

/** What CreateResolution uses: the whole resolution pipeline and the idempotency store. */
export type CreateResolutionDeps = ResolutionDeps;

const RULES = CreateResolutionBody.shape;

/**
 * CreateResolution (POST /api/v2/resolutions): resolves a service's request into ranked, bookable options under a
 * required Idempotency-Key (a replay with the same payload answers the first resolution, `Idempotent-Replayed`).
 */
export async function createResolution(
  deps: CreateResolutionDeps,
  caller: Caller,
  request: CreateResolutionRequest,
  call: TypedCall,
): Promise<TypedAnswer<CreateResolutionResponse>> {
  const key = requireIdempotencyKey(call.headers);
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
  const out = await withIdempotency(deps.idempotency, caller, 'resolutions', key, body, () =>
    runResolution(deps, caller, resolutionRequestOfV2(checked as Parameters<typeof resolutionRequestOfV2>[0])),
  );
  return typedAnswerOf(out, (r) => ({ resolution: resolutionMessage(r) }));
}
