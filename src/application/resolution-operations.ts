import type { z } from 'zod';
import { parseInput } from '../contract/parse-input.js';
import {
  CandidatesQuery,
  CreateResolutionBody,
  CreateResolutionV1Body,
  ResolutionPath,
} from '../contract/schemas/resolution.js';
import { ConfirmBody, HOLD_TTL_SECONDS, HoldBody, HoldPath } from '../contract/schemas/hold.js';
import { confirmResolution } from './booking/confirm-resolution.js';
import { getHold, holdOption, releaseHold } from './booking/hold-flows.js';
import type { EligibilityRequest } from '../domain/eligibility.js';
import type { OperationTable } from './operation.js';
import { optionalIdempotencyKey, requireIdempotencyKey } from './idempotency.js';
import { withIdempotency } from './with-idempotency.js';
import { createResolution } from './resolution/create-resolution.js';
import type { ResolutionRequest } from './resolution/resolution-request.js';
import { resolutionRequestOfV2 } from './resolution/resolution-request-of-v2.js';
import { accessResolution } from './resolution/read-resolution.js';
import { buildCandidates, pageCandidates } from './resolution/list-candidates.js';
import { listResolutions } from './resolution/list-resolutions.js';
import type { ResolutionDeps } from './resolution/resolution-deps.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

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

/** ResolutionService operations: resolutions, candidates, holds and confirmation. */
export function createResolutionOperations(deps: ResolutionDeps): OperationTable {
  return {
    CreateResolution: {
      audit: { ...AUDIT_ACTIONS.resolutionCreate, kind: 'write' },
      async handler(caller, input) {
        const key = requireIdempotencyKey(input.headers);
        const body = parseInput(CreateResolutionBody, input.body);
        return withIdempotency(deps.idempotency, caller, 'resolutions', key, input.body, () =>
          createResolution(deps, caller, resolutionRequestOfV2(body)),
        );
      },
    },
    CreateResolutionV1: {
      audit: { ...AUDIT_ACTIONS.resolutionCreate, kind: 'write' },
      async handler(caller, input) {
        const body = parseInput(CreateResolutionV1Body, input.body);
        const key = input.headers['idempotency-key']?.trim();
        if (!key) return createResolution(deps, caller, fromV1(body));
        return withIdempotency(
          deps.idempotency,
          caller,
          'v1-resolutions',
          requireIdempotencyKey(input.headers),
          input.body,
          () => createResolution(deps, caller, fromV1(body)),
        );
      },
    },
    ListResolutions: {
      audit: { ...AUDIT_ACTIONS.resolutionList, kind: 'read' },
      handler: (caller, input) => listResolutions(deps, caller, input.query),
    },
    GetResolution: {
      audit: { ...AUDIT_ACTIONS.resolutionRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(ResolutionPath, input.params);
        const { record, expiresAt } = await accessResolution(deps, caller, id);
        return { ...record.response, expiresAt };
      },
    },
    ListCandidates: {
      audit: { ...AUDIT_ACTIONS.resolutionCandidates, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(ResolutionPath, input.params);
        const q = parseInput(CandidatesQuery, input.query);
        const { record } = await accessResolution(deps, caller, id);
        return { resolutionId: id, ...pageCandidates(await buildCandidates(deps, record), q) };
      },
    },
    HoldOption: {
      audit: { ...AUDIT_ACTIONS.holdCreate, kind: 'write' },
      async handler(caller, input) {
        const { id, optionId } = parseInput(HoldPath, input.params);
        const body = parseInput(HoldBody, input.body ?? {});
        const key = optionalIdempotencyKey(input.headers);
        if (!key) return holdOption(deps, caller, id, optionId, body.ttlSeconds ?? HOLD_TTL_SECONDS.default);
        return withIdempotency(
          deps.idempotency,
          caller,
          `hold:${id}:${optionId}`,
          key,
          input.body ?? {},
          (record) => holdOption(deps, caller, id, optionId, body.ttlSeconds ?? HOLD_TTL_SECONDS.default, record),
          { durable: true },
        );
      },
    },
    GetHold: {
      audit: { ...AUDIT_ACTIONS.holdRead, kind: 'read' },
      async handler(caller, input) {
        const { id, optionId } = parseInput(HoldPath, input.params);
        return getHold(deps, caller, id, optionId);
      },
    },
    ReleaseHold: {
      audit: { ...AUDIT_ACTIONS.holdRelease, kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id, optionId } = parseInput(HoldPath, input.params);
        return releaseHold(deps, caller, id, optionId);
      },
    },
    ConfirmResolution: {
      audit: { ...AUDIT_ACTIONS.bookingCreate, kind: 'write' },
      async handler(caller, input) {
        const key = requireIdempotencyKey(input.headers);
        const { id } = parseInput(ResolutionPath, input.params);
        const body = parseInput(ConfirmBody, input.body);
        return withIdempotency(
          deps.idempotency,
          caller,
          `confirm:${id}`,
          key,
          input.body,
          (record) => confirmResolution(deps, caller, id, body, record),
          { durable: true },
        );
      },
    },
  };
}
