import type { z } from 'zod';
import type {
  CreateResolutionV1Request,
  CreateResolutionV1Request_ConstraintLists,
  CreateResolutionV1Response,
} from '../../gen/scheduling/v1/resolution_service.js';
import { CreateResolutionV1Body } from '../../contract/schemas/resolution.js';
import type { EligibilityRequest } from '../../domain/eligibility.js';
import type { Caller } from '../../application/caller.js';
import type { TypedAnswer, TypedCall } from '../../application/operation.js';
import { optionalIdempotencyKey } from '../../application/idempotency.js';
import { withIdempotency } from '../../application/with-idempotency.js';
import { createResolution as runResolution } from '../../application/resolution/create-resolution.js';
import type { ResolutionRequest } from '../../application/resolution/resolution-request.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { RequestProblems, given } from '../request-problems.js';
import { preferencesGiven } from '../care-service/resolution-input.js';
import { resolutionMessage } from '../messages/resolution-message.js';
import { dateRangeGiven, typedAnswerOf } from './resolution-body.js';

/** What CreateResolutionV1 uses: the whole resolution pipeline and the idempotency store. */
export type CreateResolutionV1Deps = ResolutionDeps;

const RULES = CreateResolutionV1Body.shape;

/** The v1 constraint lists, in the contract's order; a list has no presence, so an empty one is not given. */
const V1_LISTS = [
  'languages',
  'languageCodes',
  'modality',
  'modalityCodes',
  'insurance',
  'insurancePlanCodes',
  'specialty',
  'specialtyCodes',
  'profession',
  'professionCodes',
  'ageGroupCodes',
  'serviceRegionCodes',
  'licenseRegionCodes',
] as const;

/** The v1 constraints a request gives, in their REST spelling (lists of codes); unset: not given. */
function v1ConstraintsGiven(c: CreateResolutionV1Request_ConstraintLists | undefined) {
  if (!c) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of V1_LISTS) if (c[key]?.length) out[key] = c[key];
  if (c.acceptsNewClients !== undefined) out.acceptsNewClients = c.acceptsNewClients;
  return out;
}

/** Maps a validated v1 body (plain values, v1 or v2 names; license region ignored) onto the resolution request. */
function fromV1(b: z.output<typeof CreateResolutionV1Body>): ResolutionRequest {
  const c = b.constraints ?? {};
  const constraints: EligibilityRequest = {
    languageCodes: c.languageCodes ?? c.languages,
    modalityCodes: c.modalityCodes ?? c.modality,
    insurancePlanCodes: c.insurancePlanCodes ?? c.insurance,
    specialtyCodes: c.specialtyCodes ?? c.specialty,
    professionCodes: c.professionCodes ?? c.profession,
    ageGroupCodes: c.ageGroupCodes,
    serviceRegionCodes: c.serviceRegionCodes,
    acceptsNewClients: c.acceptsNewClients,
  };
  return {
    service: b.service,
    acceptSlug: true,
    constraints,
    preferences: b.preferences ?? {},
    dateRange: b.dateRange,
    maxOptionsPerProvider: b.maxOptionsPerProvider ?? 3,
  };
}

/**
 * CreateResolutionV1 (POST /api/v1/resolutions): a resolution of a v1 request (`service` by id or slug, plain-value
 * constraints under v1 or v2 names), under an Idempotency-Key when one is given.
 */
export async function createResolutionV1(
  deps: CreateResolutionV1Deps,
  caller: Caller,
  request: CreateResolutionV1Request,
  call: TypedCall,
): Promise<CreateResolutionV1Response | TypedAnswer<CreateResolutionV1Response>> {
  const problems = new RequestProblems();
  const body = {
    service: given(request.service),
    constraints: v1ConstraintsGiven(request.constraintLists),
    preferences: preferencesGiven(request.preferences),
    dateRange: dateRangeGiven(request.dateRange),
    maxOptionsPerProvider: request.maxOptionsPerProvider,
  };
  const checked = {
    service: problems.check('service', RULES.service, body.service),
    constraints: problems.check('constraints', RULES.constraints, body.constraints),
    preferences: problems.check('preferences', RULES.preferences, body.preferences),
    dateRange: problems.check('dateRange', RULES.dateRange, body.dateRange),
    maxOptionsPerProvider: problems.check(
      'maxOptionsPerProvider',
      RULES.maxOptionsPerProvider,
      body.maxOptionsPerProvider,
    ),
  };
  problems.throwIfAny();
  const req = fromV1(checked as z.output<typeof CreateResolutionV1Body>);
  const key = optionalIdempotencyKey(call.headers);
  if (!key) return { resolution: resolutionMessage(await runResolution(deps, caller, req)) };
  const out = await withIdempotency(deps.idempotency, caller, 'v1-resolutions', key, body, () =>
    runResolution(deps, caller, req),
  );
  return typedAnswerOf(out, (r) => ({ resolution: resolutionMessage(r) }));
}
