import { getInitialSnapshot, transition, type SnapshotFrom } from 'xstate';
import type { ResolutionEvent } from '../../../machines/resolution-machine.js';
import { resolutionActorKind } from '../../../machines/machine-versions.js';
import { ActorAlreadyExistsError } from '../../persistence/actor-store-errors.js';
import { outcomeOf, readResolutionLedger, type ResolutionLedger } from '../../persistence/resolution-repository.js';
import { SYSTEM_CAUSE } from '../step-cause.js';
import type { ResolutionDeps } from './resolution-deps.js';

type ResolutionSnapshot = SnapshotFrom<typeof resolutionActorKind.machine>;

/** How long a resynced actor is kept in Redis, like one made at creation. */
const ACTOR_TTL_MS = 24 * 3600 * 1000;

/** The resolution events its ledger records, in the order they happened (a hold's start and end, the confirm). */
function ledgerEvents(ledger: ResolutionLedger): ResolutionEvent[] {
  const events: ResolutionEvent[] = [];
  for (const h of ledger.holds) {
    events.push({ type: 'HOLD_STARTED', holdId: h.holdId, at: h.startedAt.toISOString() });
    // A hold a confirm consumed ends with the CONFIRMED event below.
    if (h.endedAt && !h.bookingId) events.push({ type: 'HOLD_ENDED', holdId: h.holdId, at: h.endedAt.toISOString() });
  }
  const { booking } = ledger;
  if (booking) {
    const used = ledger.holds.find((h) => h.bookingId === booking.id);
    events.push({
      type: 'CONFIRMED',
      bookingId: booking.id,
      ...(used ? { holdId: used.holdId } : {}),
      at: booking.createdAt.toISOString(),
    });
  }
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/**
 * A resync of one resolution: when its ledger row exists but Redis has no actor (Redis lost it, or a crash came between
 * the ledger's commit and the actor's creation), creates the actor again from the ledger. The resolution machine
 * replays what the ledger recorded (its outcome and deadline, each hold's start and end, the confirm, and an expiry
 * the row already records), the actor is created with that state, its history saying `RESYNC` by `system`, and its
 * expiry timer is armed at the replayed deadline. Answers whether the actor exists now (false: no such row).
 */
export async function resyncResolutionActor(
  deps: Pick<ResolutionDeps, 'db' | 'actors' | 'clock'>,
  organizationId: string,
  id: string,
): Promise<boolean> {
  const ledger = await readResolutionLedger(deps.db, organizationId, id);
  if (!ledger) return false;
  const now = deps.clock();
  const { machine } = resolutionActorKind;
  const input = {
    resolutionId: ledger.id,
    organizationId: ledger.organizationId,
    outcome: outcomeOf(ledger.optionsReturned),
    expiresAt: ledger.expiresAt.toISOString(),
  };
  const first = getInitialSnapshot(machine, input) as ResolutionSnapshot;
  let state = first;
  const events: ResolutionEvent[] = ledgerEvents(ledger);
  if (ledger.status === 'expired') events.push({ type: 'EXPIRE', at: now.toISOString() });
  for (const event of events) [state] = transition(machine, state, event) as [ResolutionSnapshot, unknown];
  const timers = state.status === 'active' ? [{ name: 'expire', dueAt: new Date(state.context.expiresAt) }] : [];
  const expireAt = new Date(now.getTime() + ACTOR_TTL_MS);
  try {
    const created = await deps.actors.create(resolutionActorKind, id, input, {
      expireAt,
      causedBy: SYSTEM_CAUSE,
      ...(events.length === 0 ? { timers } : {}),
    });
    if (events.length > 0)
      await deps.actors.write(
        resolutionActorKind,
        id,
        { revision: created.revision, event: { type: 'RESYNC' }, before: created.snapshot, after: state },
        { timers, causedBy: SYSTEM_CAUSE },
      );
  } catch (err) {
    // Another resync (or the creation it repairs) came first: the actor exists.
    if (!(err instanceof ActorAlreadyExistsError)) throw err;
  }
  return true;
}
