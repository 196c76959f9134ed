import type { WaitlistOffer } from '../../../machines/waitlist-entry-machine.js';
import { holdActorKind, resolutionActorKind } from '../../../machines/machine-versions.js';
import { ServiceError } from '../../errors/service-error.js';
import { parseDateRange } from '../../domain/availability/date-window.js';
import type { Interval } from '../../domain/availability/busy-intervals.js';
import { auditInsertParams } from '../../persistence/audit-log.js';
import { storeEvent } from '../../persistence/event-outbox.js';
import { claimHoldStatement, type HoldClaimOutcome } from '../../persistence/hold-repository.js';
import { answerInsertParams } from '../../persistence/idempotency-answers.js';
import type { Queryable } from '../../persistence/database.js';
import { newId, randomHex } from '../../persistence/new-id.js';
import {
  findWaitlistEntry,
  updateWaitlistEntry,
  type StoredWaitlistEntry,
} from '../../persistence/waitlist-repository.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';
import { endLapsedHolds } from '../booking/end-lapsed-holds.js';
import { callerAuditEntry } from '../caller-audit-entry.js';
import { optionHeldData, outboxEvent, waitlistOfferedData } from '../event-data.js';
import { recordAudit } from '../record-audit.js';
import { commitResolution } from '../resolution/commit-resolution.js';
import { decideResolution } from '../resolution/decide-resolution.js';
import { gatherResolutionInputs, type ResolutionInputs } from '../resolution/gather-resolution-inputs.js';
import { planResolutionWrites } from '../resolution/plan-resolution-writes.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { resolutionRequestOfV2 } from '../resolution/resolution-request-of-v2.js';
import { stepCause } from '../step-cause.js';
import { followEntryActor } from './follow-entry-actor.js';
import { waitlistCaller } from './waitlist-caller.js';
import { waitlistEntryStep } from './waitlist-entry-state.js';

/** Time freed on one provider: `[from, to)`, claim buffers included. */
export interface FreedTime {
  organizationId: string;
  platformId: string;
  providerId: string;
  from: Date;
  to: Date;
}

/** What an offer attempt for one entry came to. */
export type OfferAttempt =
  /** The entry was offered a slot. */
  | { outcome: 'offered'; offer: WaitlistOffer }
  /** The entry's constraints and preferences admit no free slot of the freed time (or it is no longer waiting). */
  | { outcome: 'not_admitted' }
  /** The slot chosen was claimed by someone else meanwhile. */
  | { outcome: 'taken' };

/**
 * What offerToEntry uses: a resolution's reads (gatherResolutionInputs) and writes (commitResolution), the actor store
 * for the hold, resolution and entry actors, and the clock.
 */
export type OfferToEntryDeps = Pick<
  ResolutionDeps,
  'db' | 'clock' | 'actors' | 'metrics' | 'orgGraphs' | 'feeds' | 'records' | 'reviewHandOff'
>;

const DAY_MS = 86_400_000;
/** How far ahead freed time is offered: the window with its margins stays within a resolution's 14 days. */
export const OFFER_HORIZON_DAYS = 10;
/** Beyond every busy time read (the window widened by two days on each side), so the freed time is the only gap. */
const FAR_MS = 5 * DAY_MS;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The provider-local dates that cover `[from, to)` in any zone (a day or two either side), up to OFFER_HORIZON_DAYS ahead.
 * Undefined when the time is over.
 */
function windowOf(freed: FreedTime, now: Date): { from: string; to: string } | undefined {
  const start = Math.max(freed.from.getTime(), now.getTime());
  const end = Math.min(freed.to.getTime(), now.getTime() + OFFER_HORIZON_DAYS * DAY_MS);
  if (end <= start) return undefined;
  return { from: dateOf(start - DAY_MS), to: dateOf(end + 2 * DAY_MS) };
}

/**
 * Narrows a resolution's gathered inputs to the freed time of one provider (pure): only that provider is a
 * candidate, if the entry's constraints let it through screening at all, and everything outside `[from, to)` (and
 * every slot the entry already let lapse) is busy, so the options are exactly the provider's free slots inside the
 * freed time that the entry admits, ranked by its preferences.
 */
export function narrowToFreedTime(
  inputs: ResolutionInputs,
  freed: FreedTime,
  lapsed: readonly { providerId: string; slotStart: string }[],
): ResolutionInputs | undefined {
  const position = inputs.graph.positionOf(freed.providerId);
  if (position < 0 || !inputs.screened.screen.matched.includes(position)) return undefined;
  const from = freed.from.getTime();
  const to = freed.to.getTime();
  const busy: Interval[] = [
    ...(inputs.busy.get(freed.providerId) ?? []),
    { start: from - FAR_MS, end: from },
    { start: to, end: to + FAR_MS },
    ...lapsed
      .filter((l) => l.providerId === freed.providerId)
      .map((l) => ({ start: Date.parse(l.slotStart), end: Date.parse(l.slotStart) + 1 })),
  ].sort((a, b) => a.start - b.start);
  return {
    ...inputs,
    screened: {
      ...inputs.screened,
      screen: { ...inputs.screened.screen, matched: [position], unknown: [], reviewGroups: [] },
    },
    busy: new Map([[freed.providerId, busy]]),
    incidents: [],
  };
}

/**
 * Offers freed time to one waitlist entry (CONTRACT part 8): runs the entry's request over the freed time only; if
 * it admits a slot, stores a resolution expiring at the offer's end, then in one transaction locks the entry (still
 * `waiting`, else nothing is written), claims a hold on the slot through the ledger's claim statement (the exclusion
 * constraint makes it a real hold: a slot already taken answers `taken`), and records the machine's OFFER with its
 * `waitlist.offered` event and audit entry. The hold, resolution and entry actors follow after commit, the entry's
 * with its durable `lapse` timer at the offer's end. A resolution stored for an entry another worker offered first
 * meanwhile is left to expire.
 */
export async function offerToEntry(
  deps: OfferToEntryDeps,
  entryId: string,
  freed: FreedTime,
  ttlSeconds: number,
): Promise<OfferAttempt> {
  const stored = await findWaitlistEntry(deps.db, entryId);
  if (!stored || stored.entry.status !== 'waiting' || stored.organizationId !== freed.organizationId)
    return { outcome: 'not_admitted' };
  const now = deps.clock();
  const window = windowOf(freed, now);
  if (!window) return { outcome: 'not_admitted' };
  const caller = waitlistCaller(stored, now);
  const req = resolutionRequestOfV2({
    serviceId: stored.doc.serviceId,
    constraints: (stored.doc.constraints ?? undefined) as never,
    preferences: (stored.doc.preferences ?? undefined) as never,
    dateRange: window,
    maxOptionsPerProvider: 10,
  });
  const range = parseDateRange(window);
  if (!range.ok) return { outcome: 'not_admitted' };
  const gathered = await gatherResolutionInputs(deps, caller, req, range.window);
  const inputs = narrowToFreedTime(gathered, freed, stored.doc.lapsedSlots ?? []);
  if (!inputs) return { outcome: 'not_admitted' };
  const ids = { resolutionId: newId('res', now.getTime()), newOptionId: () => `opt_${randomHex(8)}` };
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const decision = decideResolution(inputs, caller, req, ids, expiresAt);
  if (decision.refused || decision.outcome.options.length === 0) return { outcome: 'not_admitted' };
  const plan = planResolutionWrites(inputs, caller, req, decision, ids, expiresAt);
  if (plan.refused) return { outcome: 'not_admitted' };
  plan.record.waitlistEntryId = entryId;
  const chosen = plan.record.options[0]!;
  await commitResolution(deps, ids.resolutionId, inputs.graph, plan);

  const holdId = newId('hld', now.getTime());
  const offer: WaitlistOffer = {
    resolutionId: ids.resolutionId,
    holdId,
    optionId: chosen.optionId,
    providerId: chosen.providerId,
    slotStart: chosen.start,
    expiresAt: expiresAt.toISOString(),
  };
  const event = { type: 'OFFER' as const, offer, at: now.toISOString() };
  const claim = {
    holdId,
    organizationId: stored.organizationId,
    platformId: stored.platformId,
    providerId: chosen.providerId,
    resolutionId: ids.resolutionId,
    optionId: chosen.optionId,
    start: new Date(chosen.claimStart),
    end: new Date(chosen.claimEnd),
    expiresAt,
    mode: caller.mode,
    now,
    eventData: optionHeldData({ resolutionId: ids.resolutionId, optionId: chosen.optionId, holdId, expiresAt }),
    auditParams: auditInsertParams(
      callerAuditEntry(caller, now, {
        ...AUDIT_ACTIONS.holdCreate,
        resourceId: holdId,
        after: { resolutionId: ids.resolutionId, optionId: chosen.optionId, expiresAt: expiresAt.toISOString() },
      }),
    ).params,
    answerParams: answerInsertParams(undefined, null, now),
  };
  const claimIn = async (tx: Queryable): Promise<HoldClaimOutcome> => {
    const first = await claimHoldStatement(tx, claim);
    if (first.claimed || !first.lapsed) return first;
    await endLapsedHolds(tx, { providerId: claim.providerId, start: claim.start, end: claim.end, now });
    return claimHoldStatement(tx, claim);
  };
  // Lock order: the entry row first (no claim lock is ever held while waiting for an entry row), then the claim lock
  // inside the claim statement, then the entry's write, its event and audit entry.
  const result = await deps.db
    .transaction(async (tx): Promise<OfferAttempt | { outcome: 'skip' }> => {
      const locked = await findWaitlistEntry(tx, entryId, { forUpdate: true });
      if (!locked) return { outcome: 'not_admitted' };
      const step = waitlistEntryStep(locked, event);
      if (!step.changed || step.status !== 'offered') return { outcome: 'skip' };
      const held = await claimIn(tx);
      if (!held.claimed) return { outcome: 'taken' };
      const view = await updateWaitlistEntry(tx, entryId, { status: step.status, doc: step.doc, now });
      await storeEvent(
        tx,
        outboxEvent('waitlist.offered', waitlistOfferedData(entryId, offer), {
          platformId: locked.platformId,
          organizationId: locked.organizationId,
          mode: caller.mode,
          createdAt: now,
        }),
      );
      await recordAudit(tx, caller, now, {
        ...AUDIT_ACTIONS.waitlistEntryOffer,
        resourceId: entryId,
        before: locked.entry,
        after: view,
      });
      return { outcome: 'offered', offer };
    })
    .catch((err: unknown): OfferAttempt => {
      // A claim committed after the statement's check meets the constraints: the slot went to someone else.
      if (err instanceof ServiceError && (err.code === 'SLOT_UNAVAILABLE' || err.code === 'HOLD_CONFLICT'))
        return { outcome: 'taken' };
      throw err;
    });
  if (result.outcome === 'skip') return { outcome: 'not_admitted' };
  if (result.outcome !== 'offered') return result;
  const causedBy = stepCause(caller);
  await Promise.all([
    deps.actors.create(
      holdActorKind,
      holdId,
      {
        holdId,
        resolutionId: ids.resolutionId,
        optionId: chosen.optionId,
        at: now.toISOString(),
        expiresAt: offer.expiresAt,
      },
      { timers: [{ name: 'expire', dueAt: expiresAt }], expireAt: new Date(now.getTime() + DAY_MS), causedBy },
    ),
    deps.actors.send(
      resolutionActorKind,
      ids.resolutionId,
      { type: 'HOLD_STARTED', holdId, at: now.toISOString() },
      { causedBy },
    ),
    followEntryActor(deps, stored, event, causedBy),
  ]);
  return result;
}
