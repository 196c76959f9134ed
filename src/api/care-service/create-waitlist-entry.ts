import { getInitialSnapshot } from 'xstate';
import type { CreateWaitlistEntryRequest, CreateWaitlistEntryResponse } from '../../gen/scheduling/v1/care_service.js';
import { CreateWaitlistEntryBody } from '../../contract/schemas/care.js';
import type { Database } from '../../persistence/database.js';
import type { ActorStore } from '../../persistence/actor-store.js';
import { newId } from '../../persistence/new-id.js';
import { findResolutionOrganizationId } from '../../persistence/resolution-repository.js';
import { findServiceRow } from '../../persistence/service-repository.js';
import {
  insertWaitlistEntry,
  type WaitlistDoc,
  type WaitlistEntryStatus,
} from '../../persistence/waitlist-repository.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { stepCause } from '../../application/step-cause.js';
import { ENTRY_ACTOR_TTL_MS } from '../../application/waitlist/follow-entry-actor.js';
import { waitlistEntryActorKind } from '../../../machines/machine-versions.js';
import { waitlistEntryMachine } from '../../../machines/waitlist-entry-machine.js';
import { RequestProblems, given } from '../request-problems.js';
import { waitlistEntryMessage } from '../messages/care-messages.js';
import { constraintsGiven, preferencesGiven } from './resolution-input.js';
import { ensureOwned } from './owned-reference.js';

/** What CreateWaitlistEntry uses. */
export interface CreateWaitlistEntryDeps {
  db: Database;
  clock: () => Date;
  actors: ActorStore;
}

const RULES = CreateWaitlistEntryBody.shape;

/**
 * CreateWaitlistEntry: puts a customer on the waitlist of a service of the caller's organization (with the constraints
 * and preferences a resolution would take, and the resolution that led here, if any), `waiting` as its machine starts.
 * The row commits first, audited as `waitlist_entry.create`; then the entry's actor is created.
 */
export async function createWaitlistEntry(
  deps: CreateWaitlistEntryDeps,
  caller: Caller,
  request: CreateWaitlistEntryRequest,
): Promise<CreateWaitlistEntryResponse> {
  const problems = new RequestProblems();
  const serviceId = problems.check('serviceId', RULES.serviceId, given(request.serviceId));
  const c = request.customer;
  const customer = problems.check('customer', RULES.customer, c && { name: given(c.name), email: given(c.email) });
  const constraints = problems.check('constraints', RULES.constraints, constraintsGiven(request.constraints));
  const preferences = problems.check('preferences', RULES.preferences, preferencesGiven(request.preferences));
  const resolutionId = problems.check('resolutionId', RULES.resolutionId, request.resolutionId);
  problems.throwIfAny();
  ensureOwned((await findServiceRow(deps.db, serviceId!))?.organization_id, caller, 'SERVICE_NOT_FOUND', 'serviceId');
  if (resolutionId !== undefined)
    ensureOwned(
      await findResolutionOrganizationId(deps.db, resolutionId),
      caller,
      'RESOLUTION_NOT_FOUND',
      'resolutionId',
    );
  const now = deps.clock();
  const doc: WaitlistDoc = {
    serviceId: serviceId!,
    customer: customer!,
    constraints: constraints ?? null,
    preferences: preferences ?? null,
    resolutionId: resolutionId ?? null,
    cancelledAt: null,
    mode: caller.mode,
    offer: null,
    offersMade: 0,
    lapsedSlots: [],
    bookingId: null,
    bookedAt: null,
  };
  const id = newId('wl', now.getTime());
  const actorInput = { entryId: id, organizationId: caller.organizationId, serviceId: serviceId!, mode: caller.mode };
  // The entry's first state is its machine's; the row commits first, then its actor is created.
  const status = String(getInitialSnapshot(waitlistEntryMachine, { ...actorInput, at: now.toISOString() }).value);
  const view = await deps.db.transaction(async (tx) => {
    const inserted = await insertWaitlistEntry(tx, {
      id,
      platformId: caller.platformId,
      organizationId: caller.organizationId,
      status: status as WaitlistEntryStatus,
      doc,
      now,
    });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.waitlistEntryCreate,
      resourceId: inserted.id,
      after: inserted,
    });
    return inserted;
  });
  await deps.actors.create(
    waitlistEntryActorKind,
    id,
    { ...actorInput, at: now.toISOString() },
    { causedBy: stepCause(caller), expireAt: new Date(now.getTime() + ENTRY_ACTOR_TTL_MS) },
  );
  return { waitlistEntry: waitlistEntryMessage(view) };
}
