import type { CreateContinuityRequest, CreateContinuityResponse } from '../../gen/scheduling/v1/care_service.js';
import { CreateContinuityBody } from '../../contract/schemas/care.js';
import { ServiceError } from '../../errors/service-error.js';
import type { Database } from '../../persistence/database.js';
import { findContinuityRecord, upsertContinuityRecord } from '../../persistence/continuity-repository.js';
import { newId } from '../../persistence/new-id.js';
import { bumpGraphVersion } from '../../persistence/organization-repository.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, given } from '../request-problems.js';
import { continuityMessage } from '../messages/care-messages.js';

/** What CreateContinuity uses. */
export interface CreateContinuityDeps {
  db: Database;
  clock: () => Date;
}

/**
 * CreateContinuity: records (or refreshes) that a client saw a provider of the caller's organization, an upsert on
 * (clientRef, providerId); without `last_seen_at` a new record has none and an existing one keeps its own. A change
 * advances the provider graph version and is audited as `continuity.create` or `continuity.update`; a repeat that
 * changes nothing records nothing.
 */
export async function createContinuity(
  deps: CreateContinuityDeps,
  caller: Caller,
  request: CreateContinuityRequest,
): Promise<CreateContinuityResponse> {
  const problems = new RequestProblems();
  const providerId = problems.check('providerId', CreateContinuityBody.shape.providerId, given(request.providerId));
  const clientRef = problems.check('clientRef', CreateContinuityBody.shape.clientRef, given(request.clientRef));
  const seen = request.lastSeenAt;
  if (seen !== undefined && Number.isNaN(seen.getTime())) problems.add('lastSeenAt', 'must be an ISO 8601 timestamp');
  problems.throwIfAny();
  const now = deps.clock();
  const lastSeenAt = seen === undefined ? null : seen;
  const view = await deps.db.transaction(async (tx) => {
    await providerOfCaller(tx, caller, providerId!).catch((err: unknown) => {
      throw err instanceof ServiceError ? new ServiceError(err.code, err.message, { field: 'providerId' }) : err;
    });
    const key = { organizationId: caller.organizationId, clientRef: clientRef!, providerId: providerId! };
    const prev = await findContinuityRecord(tx, key, { forUpdate: true });
    const upserted = await upsertContinuityRecord(tx, {
      ...key,
      id: newId('cty', now.getTime()),
      platformId: caller.platformId,
      lastSeenAt,
      now,
    });
    if (prev && prev.lastSeenAt === upserted.lastSeenAt) return upserted;
    // Continuity changes the order a resolution gives; a new graph version keeps "same input, same graph version, same order" true.
    await bumpGraphVersion(tx, caller.organizationId);
    await recordAudit(tx, caller, now, {
      ...(prev ? AUDIT_ACTIONS.continuityUpdate : AUDIT_ACTIONS.continuityCreate),
      resourceId: upserted.id,
      before: prev ?? null,
      after: upserted,
    });
    return upserted;
  });
  return { continuityRecord: continuityMessage(view) };
}
