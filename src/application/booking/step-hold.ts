import type { HoldEvent } from '../../../machines/hold-machine.js';
import { holdActorKind } from '../../../machines/machine-versions.js';
import type { AuditEntry } from '../../persistence/audit-log.js';
import type { StepCause } from '../../persistence/actor-store.js';
import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import { endHold } from '../../persistence/hold-repository.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { endHoldOnResolution } from './end-hold-on-resolution.js';
import { holdEndOf, holdReleasedEvent, holdStep, type HoldRow, type HoldState } from './hold-state.js';

/** What a hold step did: the hold machine's state after the event, whether it changed, and the row as stored. */
export interface HoldStepResult {
  value: HoldState;
  changed: boolean;
  hold: HoldRow;
}

/** What stepHold uses: the database, the actor store and the clock (the resolution actor's expiry). */
export type StepHoldDeps = Pick<ResolutionDeps, 'db' | 'actors' | 'clock'>;

/**
 * One step of a hold's lifecycle (RELEASE, EXPIRE; a confirm's CONFIRM is recorded by its own statement). The ledger
 * row is the hold's system of record: the hold machine decides from it (pure), the ledger records an end under the
 * provider's claim lock only while the hold is still active, with its option.released event and, when `audit` gives
 * one, its audit entry, in one statement; then the hold actor and the resolution actor follow the same event (a hold
 * the ledger already ended is mirrored again, which repairs an actor a crash left behind). Answers undefined when the
 * row changed between the read and the write: the caller reads it again and steps again.
 */
export async function stepHold(
  deps: StepHoldDeps,
  hold: HoldRow,
  event: Extract<HoldEvent, { type: 'RELEASE' | 'EXPIRE' }>,
  opts: {
    causedBy: StepCause;
    /** The audit entry of an end to this state, if it has one. */
    audit?: (state: 'released' | 'expired') => AuditEntry | undefined;
    /** The mode of the option.released event (default the hold's). */
    mode?: 'live' | 'test';
  },
): Promise<HoldStepResult | undefined> {
  const now = new Date(event.at);
  const step = holdStep(hold, event);
  const value = step.value as HoldState;
  const end = holdEndOf(step);
  let stored = hold;
  if (step.changed && hold.active && (end?.state === 'released' || end?.state === 'expired')) {
    const audit = opts.audit?.(end.state);
    const ended = await endHold(deps.db, hold, {
      end,
      now,
      event: holdReleasedEvent(hold, end, opts.mode),
      ...(audit ? { audit } : {}),
    });
    if (!ended) return undefined;
    stored = ended;
  }
  if (!stored.active) {
    await deps.actors.send(holdActorKind, hold.ref_id, event, { causedBy: opts.causedBy }).catch((err) => {
      if (!(err instanceof ActorNotFoundError)) throw err;
    });
    await endHoldOnResolution(deps, hold.resolution_id, hold.ref_id, opts.causedBy);
  }
  return { value, changed: step.changed, hold: stored };
}
