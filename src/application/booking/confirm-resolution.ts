import { ServiceError } from '../../errors/service-error.js';
import { holdActorKind, resolutionActorKind } from '../../../machines/machine-versions.js';
import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import { answerInsertParams, type IdempotencyRecord } from '../../persistence/idempotency-answers.js';
import { auditInsertParams } from '../../persistence/audit-log.js';
import {
  confirmAnswer,
  confirmBookingStatement,
  currentBookingNames,
  type BookingNames,
  type ConfirmOutcome,
} from '../../persistence/confirm-booking-statement.js';
import type { Queryable } from '../../persistence/database.js';
import { newId } from '../../persistence/new-id.js';
import type { Caller } from '../caller.js';
import { stepCause } from '../step-cause.js';
import { accessResolution } from '../resolution/read-resolution.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { initialBookingState } from './booking-state.js';
import { toBookingV2 } from './booking-views.js';
import { bookingEventData } from '../event-data.js';
import { callerAuditEntry } from '../caller-audit-entry.js';
import { holdById, latestHold } from '../../persistence/hold-repository.js';
import { holdEndOf, holdStep, type HoldRow } from './hold-state.js';
import { slotUnavailable } from '../../persistence/slot-claims.js';
import { endLapsedHolds } from './end-lapsed-holds.js';
import { writeBookingActor } from './write-booking-actor.js';
import { bookOffer } from '../waitlist/book-offer.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';

/** A validated confirm body. */
export interface ConfirmInput {
  optionId: string;
  holdId?: string | undefined;
  customer: { name: string; email: string; lastname?: string | undefined; timezone?: string | undefined };
  metadata?: Record<string, unknown> | undefined;
}

/** Checks a hold against the option being confirmed (CONTRACT part 5) with the hold machine. */
function checkHold(
  hold: HoldRow | undefined,
  organizationId: string,
  resolutionId: string,
  optionId: string,
  bookingId: string,
  at: string,
  explicit: boolean,
): HoldRow | undefined {
  // Another organization's hold is 403 like every foreign id in a body (CONTRACT part 2), not "not found".
  if (hold && hold.organization_id !== organizationId)
    throw new ServiceError('FORBIDDEN', 'This hold belongs to another organization.', { field: 'holdId' });
  if (!hold || hold.resolution_id !== resolutionId) {
    if (explicit) throw new ServiceError('HOLD_NOT_FOUND', undefined, { field: 'holdId' });
    return undefined;
  }
  if (hold.option_id !== optionId) throw new ServiceError('HOLD_MISMATCH', undefined, { field: 'holdId' });
  const step = holdStep(hold, { type: 'CONFIRM', bookingId, at });
  if (step.value === 'expired')
    throw new ServiceError('HOLD_EXPIRED', `The hold expired at ${hold.expires_at.toISOString()}.`, {
      field: 'holdId',
    });
  if (step.value === 'released') throw new ServiceError('HOLD_RELEASED', undefined, { field: 'holdId' });
  if (step.value === 'consumed' && !step.changed) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  return hold;
}

/**
 * Answers a confirm whose resolution expired because the hold it names ended: CONTRACT part 5 answers confirming with
 * an expired hold 410 HOLD_EXPIRED, whether or not the hold's expiry timer has yet expired its resolution too (which
 * one a client saw would otherwise depend on when the timer ran). Any other error is thrown as it is.
 */
async function refuseLapsedHoldFirst(
  deps: Pick<ResolutionDeps, 'db' | 'clock'>,
  caller: Caller,
  resolutionId: string,
  holdId: string | undefined,
  err: unknown,
): Promise<never> {
  if (err instanceof ServiceError && err.code === 'RESOLUTION_EXPIRED' && holdId) {
    const hold = await holdById(deps.db, holdId);
    if (
      hold &&
      hold.organization_id === caller.organizationId &&
      hold.resolution_id === resolutionId &&
      holdStep(hold, { type: 'CONFIRM', bookingId: '', at: deps.clock().toISOString() }).value === 'expired'
    )
      throw new ServiceError('HOLD_EXPIRED', `The hold expired at ${hold.expires_at.toISOString()}.`, {
        field: 'holdId',
      });
  }
  throw err;
}

/** How often a confirm is tried when the hold or the names changed between its reads and its statement. */
const CONFIRM_ATTEMPTS = 3;

/**
 * Confirms an option into a booking (SPEC 4.1 confirm). The ledger statement is the arbiter: the booking's
 * claim goes through the exclusion constraint (409 SLOT_UNAVAILABLE), one booking per resolution through a
 * unique index (409 RESOLUTION_ALREADY_CONFIRMED), and the hold used, if any, is consumed. The booking,
 * hold and resolution actors mirror the result afterwards. With `idempotency`, the answer is committed with the
 * booking for that key's replays; it is built from the row as planned, with the provider's username the statement
 * read (confirmAnswer), and that same body is returned.
 */
export async function confirmResolution(
  deps: Pick<ResolutionDeps, 'db' | 'clock' | 'actors' | 'records'>,
  caller: Caller,
  resolutionId: string,
  input: ConfirmInput,
  idempotency?: IdempotencyRecord,
) {
  const {
    record,
    bookingId: already,
    activeHoldId,
  } = await accessResolution(deps, caller, resolutionId).catch((err: unknown) =>
    refuseLapsedHoldFirst(deps, caller, resolutionId, input.holdId, err),
  );
  if (already) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  const option = record.options.find((o) => o.optionId === input.optionId);
  if (!option) throw new ServiceError('OPTION_NOT_FOUND', undefined, { field: 'optionId' });
  const now = deps.clock();
  const at = now.toISOString();
  const bookingId = newId('bkg', now.getTime());
  // An explicit hold is checked first (its errors come before any slot question). Without a holdId, the resolution's
  // own active hold on this option is used, if any: named by the resolution actor at first, read from the ledger
  // after the statement found the option's holds changed.
  const readHold = async (fromLedger: boolean): Promise<HoldRow | undefined> => {
    if (input.holdId)
      return checkHold(
        await holdById(deps.db, input.holdId),
        caller.organizationId,
        resolutionId,
        input.optionId,
        bookingId,
        at,
        true,
      );
    const hold = fromLedger
      ? await latestHold(deps.db, resolutionId, input.optionId)
      : activeHoldId
        ? await holdById(deps.db, activeHoldId)
        : undefined;
    return hold?.active && hold.resolution_id === resolutionId && hold.option_id === input.optionId ? hold : undefined;
  };
  let hold = await readHold(false);
  const shown = (
    record.response.options as
      | {
          optionId: string;
          provider?: { displayName?: string };
          service?: { displayName?: string; durationMinutes?: number };
        }[]
      | undefined
  )?.find((o) => o.optionId === input.optionId);
  let names: BookingNames = {
    provider: shown?.provider?.displayName ?? null,
    service: shown?.service?.displayName ?? null,
    duration: shown?.service?.durationMinutes ?? null,
  };
  const customer = {
    name: input.customer.name,
    email: input.customer.email,
    timezone: input.customer.timezone ?? null,
    lastname: input.customer.lastname ?? null,
  };
  const start = new Date(option.start);
  const end = new Date(option.end);
  const { status, confirmedAt } = initialBookingState({
    id: bookingId,
    organization_id: caller.organizationId,
    source: 'v2',
    start_at: start,
    end_at: end,
    created_at: now,
    rescheduled_from: null,
  });
  // A hold lapsed in the way (its timer is late) sends the next attempt through the slow path: the claim lock, the
  // lapsed holds ended through the hold machine, and the confirm statement, in one transaction.
  let lapsedInTheWay = false;
  for (let attempt = 1; ; attempt++) {
    if (attempt > CONFIRM_ATTEMPTS)
      throw new ServiceError(
        'SERVICE_UNAVAILABLE',
        'The hold or the provider kept changing while the option was being confirmed; retry.',
        { retryAfter: 1 },
      );
    // The row as it will be stored: its event and audit entry are written by the same statement.
    const planned: BookingRow = {
      id: bookingId,
      platform_id: caller.platformId,
      organization_id: caller.organizationId,
      provider_id: option.providerId,
      service_id: option.serviceId,
      resolution_id: resolutionId,
      option_id: option.optionId,
      source: 'v2',
      status,
      start_at: start,
      end_at: end,
      timezone: option.timezone,
      customer,
      metadata: input.metadata ?? null,
      notes: null,
      confirm_token: null,
      mode: caller.mode,
      rescheduled_from: null,
      rescheduled_to: null,
      cancelled_at: null,
      cancel_reason: null,
      confirmed_at: confirmedAt,
      rescheduled_at: null,
      completed_at: null,
      created_at: now,
      updated_at: now,
      provider_name: names.provider ?? '',
      provider_username: null,
      service_title: names.service ?? '',
      service_duration: names.duration ?? 0,
    };
    const view = toBookingV2(planned);
    const claimStart = new Date(option.claimStart);
    const claimEnd = new Date(option.claimEnd);
    // The hold machine decides what the confirm does to the hold it uses; the statement records that while the hold
    // is still active (the decision depends only on the active state, the fixed expiresAt and this confirm's time).
    const consumed = consumedHold(hold, bookingId, at);
    const statement = (db: Queryable) =>
      confirmStatement(db, { caller, planned, view, idempotency, names, consumed, claimStart, claimEnd });
    const outcome: ConfirmOutcome = lapsedInTheWay
      ? await deps.db.transaction(async (tx) => {
          await endLapsedHolds(tx, { providerId: option.providerId, start: claimStart, end: claimEnd, now });
          return statement(tx);
        })
      : await statement(deps.db);
    if (outcome.confirmed) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
    if (outcome.taken) throw slotUnavailable();
    if (outcome.row) {
      const { row, usedHoldId } = outcome;
      await Promise.all([
        writeBookingActor(deps, row, { causedBy: stepCause(caller) }),
        usedHoldId
          ? deps.actors
              .send(holdActorKind, usedHoldId, { type: 'CONFIRM', bookingId, at }, { causedBy: stepCause(caller) })
              .catch((err) => {
                if (!(err instanceof ActorNotFoundError)) throw err;
              })
          : undefined,
        deps.actors.send(
          resolutionActorKind,
          resolutionId,
          { type: 'CONFIRMED', bookingId, ...(usedHoldId ? { holdId: usedHoldId } : {}), at },
          {
            causedBy: stepCause(caller),
            onTransition: (_b, after) => ({ timers: [{ name: 'expire', dueAt: new Date(after.context.expiresAt) }] }),
          },
        ),
      ]);
      // A waitlist offer's resolution books its entry (CONTRACT part 8). The booking stands either way: a failure here
      // is repaired by the entry's lapse timer, which finds the offer's hold consumed.
      if (record.waitlistEntryId)
        await bookOffer(deps, record.waitlistEntryId, { resolutionId, bookingId, at }).catch(() => undefined);
      return confirmAnswer(view, row);
    }
    // Nothing written: the resolution's copy of the names is stale, the option's holds changed meanwhile, or a hold
    // lapsed in the way.
    if (!outcome.namesCurrent) names = await currentBookingNames(deps.db, option.providerId, option.serviceId);
    lapsedInTheWay = outcome.lapsed;
    hold = await readHold(true);
  }
}

/** The hold machine's CONFIRM on the hold a confirm uses: its end as consumed, or null (no hold, or lapsed). */
function consumedHold(
  hold: HoldRow | undefined,
  bookingId: string,
  at: string,
): { refId: string; state: string; endedAt: Date } | null {
  if (!hold) return null;
  const end = holdEndOf(holdStep(hold, { type: 'CONFIRM', bookingId, at }));
  return end?.state === 'consumed' ? { refId: hold.ref_id, state: end.state, endedAt: end.endedAt } : null;
}

/**
 * The confirm statement for a planned booking, with its booking.confirmed data, its audit entry and, with a record,
 * its idempotent answer (made per attempt). `view` is the planned row's v2 shape: the audit entry's `after` and the answer.
 */
function confirmStatement(
  db: Queryable,
  p: {
    caller: Caller;
    planned: BookingRow;
    view: ReturnType<typeof toBookingV2>;
    idempotency: IdempotencyRecord | undefined;
    names: BookingNames;
    consumed: { refId: string; state: string; endedAt: Date } | null;
    claimStart: Date;
    claimEnd: Date;
  },
): Promise<ConfirmOutcome> {
  const b = p.planned;
  const audit = auditInsertParams(
    callerAuditEntry(p.caller, b.created_at, {
      ...AUDIT_ACTIONS.bookingCreate,
      resourceId: b.id,
      after: p.view,
    }),
  );
  return confirmBookingStatement(db, {
    ...p,
    eventData: bookingEventData('booking.confirmed', b),
    auditParams: audit.params,
    answerParams: answerInsertParams(p.idempotency, p.view, b.created_at),
  });
}
