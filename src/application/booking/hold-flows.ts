import { ServiceError } from '../../errors/service-error.js';
import { resolutionActorKind, holdActorKind } from '../../../machines/machine-versions.js';
import type { Queryable } from '../../persistence/database.js';
import { newId } from '../../persistence/new-id.js';
import type { Caller } from '../caller.js';
import { stepCause, SYSTEM_CAUSE } from '../step-cause.js';
import { accessResolution } from '../resolution/read-resolution.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import type { ResolutionRecord } from '../resolution/resolution-record.js';
import { slotUnavailable } from '../../persistence/slot-claims.js';
import { endLapsedHolds } from './end-lapsed-holds.js';
import { auditInsertParams } from '../../persistence/audit-log.js';
import { answerInsertParams, type IdempotencyRecord } from '../../persistence/idempotency-answers.js';
import { claimHoldStatement, holdById, latestHold, type HoldClaimOutcome } from '../../persistence/hold-repository.js';
import { optionHeldData } from '../event-data.js';
import { callerAuditEntry } from '../caller-audit-entry.js';
import { toHoldView } from './hold-state.js';
import { endHoldOnResolution } from './end-hold-on-resolution.js';
import { stepHold, type HoldStepResult, type StepHoldDeps } from './step-hold.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';

const DAY_MS = 86_400_000;

/** Reads a resolution record for tenancy only (a hold stays readable after its resolution expired). */
async function recordOfCaller(
  deps: Pick<ResolutionDeps, 'records'>,
  caller: Caller,
  id: string,
): Promise<ResolutionRecord> {
  const record = await deps.records.load(id);
  if (!record) throw new ServiceError('RESOLUTION_NOT_FOUND');
  if (record.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return record;
}

/** The contract's answer to a hold that was not claimed. */
function holdRefusal(o: HoldClaimOutcome): ServiceError {
  if (o.confirmed) return new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  if (o.held) return new ServiceError('HOLD_CONFLICT');
  return slotUnavailable();
}

/**
 * Holds an option (CONTRACT part 5): the claim is written to the ledger first, where the exclusion constraint
 * makes the slot unavailable to every other resolution and booking and a unique index allows one active hold
 * per resolution; then the hold actor and the resolution actor mirror it, with a durable expiry timer. With
 * `idempotency`, the answer is committed with the claim for that key's replays.
 */
export async function holdOption(
  deps: Pick<ResolutionDeps, 'db' | 'clock' | 'actors' | 'records'>,
  caller: Caller,
  resolutionId: string,
  optionId: string,
  ttlSeconds: number,
  idempotency?: IdempotencyRecord,
) {
  const { record, bookingId, activeHoldId } = await accessResolution(deps, caller, resolutionId);
  const option = record.options.find((o) => o.optionId === optionId);
  if (!option) throw new ServiceError('OPTION_NOT_FOUND');
  if (bookingId) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  const now = deps.clock();
  const holdId = newId('hld', now.getTime());
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const claim = {
    providerId: option.providerId,
    start: new Date(option.claimStart),
    end: new Date(option.claimEnd),
    resolutionId,
    now,
  };
  const audit = auditInsertParams(
    callerAuditEntry(caller, now, {
      ...AUDIT_ACTIONS.holdCreate,
      resourceId: holdId,
      after: { resolutionId, optionId, expiresAt: expiresAt.toISOString() },
    }),
  );
  const event = optionHeldData({ resolutionId, optionId, holdId, expiresAt });
  const view = { holdId, status: 'active', expiresAt: expiresAt.toISOString(), resolutionId, optionId };
  // One autocommit statement: a booked resolution, a live hold of the resolution or a live overlapping claim answers
  // at once without the claim lock (losers do not queue); otherwise the lock, the claim, its event and its audit entry.
  // A hold past its lifetime in the way (its timer is late) sends the claim to the slow path below (rare).
  const claimHold = (db: Queryable): Promise<HoldClaimOutcome> =>
    claimHoldStatement(db, {
      holdId,
      organizationId: caller.organizationId,
      platformId: caller.platformId,
      providerId: option.providerId,
      resolutionId,
      optionId,
      start: claim.start,
      end: claim.end,
      expiresAt,
      mode: caller.mode,
      now,
      eventData: event,
      auditParams: audit.params,
      answerParams: answerInsertParams(idempotency, view, now),
    });
  const first = await claimHold(deps.db);
  if (!first.claimed && (first.confirmed || first.held || first.taken || !first.lapsed)) throw holdRefusal(first);
  if (!first.claimed) {
    // The lapsed holds end (under the claim locks of the provider and of the resolution's lapsed hold, maybe another
    // provider's) and the claim is made again, in the same transaction.
    await deps.db.transaction(async (tx) => {
      await endLapsedHolds(tx, claim);
      const again = await claimHold(tx);
      if (!again.claimed) throw holdRefusal(again);
    });
  }
  await Promise.all([
    deps.actors.create(
      holdActorKind,
      holdId,
      { holdId, resolutionId, optionId, at: now.toISOString(), expiresAt: expiresAt.toISOString() },
      {
        timers: [{ name: 'expire', dueAt: expiresAt }],
        expireAt: new Date(now.getTime() + DAY_MS),
        causedBy: stepCause(caller),
      },
    ),
    (async () => {
      // A previous hold that lapsed ends on the resolution too, so the new one can start there.
      if (activeHoldId) await endHoldOnResolution(deps, resolutionId, activeHoldId, stepCause(caller));
      await deps.actors.send(
        resolutionActorKind,
        resolutionId,
        { type: 'HOLD_STARTED', holdId, at: now.toISOString() },
        { causedBy: stepCause(caller) },
      );
    })(),
  ]);
  return view;
}

/** How often a hold change is decided again when another request changed the hold in between. */
const HOLD_CHANGE_ATTEMPTS = 3;

/** Reads the latest hold of an option. */
export async function getHold(
  deps: Pick<ResolutionDeps, 'db' | 'clock' | 'records'>,
  caller: Caller,
  resolutionId: string,
  optionId: string,
) {
  const record = await recordOfCaller(deps, caller, resolutionId);
  if (!record.options.some((o) => o.optionId === optionId)) throw new ServiceError('OPTION_NOT_FOUND');
  const hold = await latestHold(deps.db, resolutionId, optionId);
  if (!hold) throw new ServiceError('HOLD_NOT_FOUND');
  return toHoldView(hold, deps.clock());
}

/** Releases the option's hold; releasing again answers the same body; an expired hold is 410 HOLD_EXPIRED. */
export async function releaseHold(
  deps: Pick<ResolutionDeps, 'db' | 'clock' | 'actors' | 'records'>,
  caller: Caller,
  resolutionId: string,
  optionId: string,
) {
  const record = await recordOfCaller(deps, caller, resolutionId);
  if (!record.options.some((o) => o.optionId === optionId)) throw new ServiceError('OPTION_NOT_FOUND');
  const now = deps.clock();
  // Decided by the hold machine on the row read without a lock; the change is made under the provider's claim lock
  // only while the hold is still active, else (another request ended it meanwhile) decided again on the new row.
  let outcome: HoldStepResult | undefined;
  for (let attempt = 1; !outcome; attempt++) {
    if (attempt > HOLD_CHANGE_ATTEMPTS)
      throw new ServiceError('SERVICE_UNAVAILABLE', 'The hold kept changing while it was being released; retry.', {
        retryAfter: 1,
      });
    const hold = await latestHold(deps.db, resolutionId, optionId);
    if (!hold) throw new ServiceError('HOLD_NOT_FOUND');
    outcome = await stepHold(
      deps,
      hold,
      { type: 'RELEASE', at: now.toISOString() },
      {
        causedBy: stepCause(caller),
        mode: caller.mode,
        audit: (state) =>
          state === 'released'
            ? callerAuditEntry(caller, now, {
                ...AUDIT_ACTIONS.holdRelease,
                resourceId: hold.ref_id,
                before: { status: 'active' },
                after: { status: 'released' },
              })
            : undefined,
      },
    );
  }
  if (outcome.value === 'expired')
    throw new ServiceError('HOLD_EXPIRED', `The hold expired at ${outcome.hold.expires_at.toISOString()}.`);
  if (outcome.value === 'consumed')
    throw new ServiceError('HOLD_RELEASED', 'The hold was used to confirm a booking and can no longer be released.');
  return toHoldView(outcome.hold, now);
}

/** The durable expiry timer of a hold: EXPIRE through stepHold (a late, early or repeated timer is harmless). */
export async function expireHold(deps: StepHoldDeps, holdId: string): Promise<void> {
  const at = deps.clock().toISOString();
  for (let attempt = 1; attempt <= HOLD_CHANGE_ATTEMPTS; attempt++) {
    const hold = await holdById(deps.db, holdId);
    if (!hold) return;
    if (await stepHold(deps, hold, { type: 'EXPIRE', at }, { causedBy: SYSTEM_CAUSE })) return;
  }
}
