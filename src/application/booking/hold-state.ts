import { holdHasLapsed, holdMachine, type HoldContext } from '../../../machines/hold-machine.js';
import type { HoldRow } from '../../persistence/hold-repository.js';
import { machineStep } from '../lifecycle/machine-step.js';
import { optionReleasedData } from '../event-data.js';

/** A hold's ledger row (a slot_claims row of kind 'hold'), as the hold repository reads it. */
export type { HoldRow };

/** The hold machine state of a ledger row at `now` (a lapsed active hold is already expired). */
export function holdStateOf(h: HoldRow): HoldState {
  if (h.active) return 'active';
  if (h.end_reason === 'released') return 'released';
  if (h.end_reason === 'consumed') return 'consumed';
  return 'expired';
}

/** Decides a hold event with the hold machine, from the ledger row. */
export function holdStep(
  h: HoldRow,
  event:
    | { type: 'RELEASE'; at: string }
    | { type: 'CONFIRM'; bookingId: string; at: string }
    | { type: 'EXPIRE'; at: string },
) {
  const context = {
    holdId: h.ref_id,
    resolutionId: h.resolution_id,
    optionId: h.option_id,
    createdAt: h.created_at.toISOString(),
    expiresAt: h.expires_at.toISOString(),
    releasedAt: h.end_reason === 'released' ? (h.ended_at?.toISOString() ?? null) : null,
    expiredAt: h.end_reason === 'expired' ? h.expires_at.toISOString() : null,
    consumedAt: h.end_reason === 'consumed' ? (h.ended_at?.toISOString() ?? null) : null,
    bookingId: h.booking_id,
  };
  return machineStep(holdMachine, holdStateOf(h), context, event);
}

/** A stored hold state (slot_claims.end_reason of an ended hold is the hold machine's final state). */
export type HoldState = 'active' | 'released' | 'expired' | 'consumed';

/** How a hold ended: the hold machine's final state and the time its context recorded. */
export type HoldEnd = { [S in Exclude<HoldState, 'active'>]: { state: S; endedAt: Date } }[Exclude<
  HoldState,
  'active'
>];

/**
 * The hold machine's next state for a step that ends a hold, and the end time its context recorded (releasedAt,
 * expiredAt or consumedAt): what `endHold` stores. Answers undefined when the step does not end the hold.
 */
export function holdEndOf(step: { value: string; context: Record<string, unknown> }): HoldEnd | undefined {
  const c = step.context as unknown as HoldContext;
  const at =
    step.value === 'released'
      ? c.releasedAt
      : step.value === 'expired'
        ? c.expiredAt
        : step.value === 'consumed'
          ? c.consumedAt
          : null;
  return at ? ({ state: step.value, endedAt: new Date(at) } as HoldEnd) : undefined;
}

/** The hold as answered (CONTRACT part 5): an expired hold reads `expired`; a hold used by a booking reads `released`. */
export function toHoldView(h: HoldRow, now: Date) {
  const state = h.active && holdHasLapsed(h.expires_at, now) ? 'expired' : holdStateOf(h);
  const status = state === 'consumed' ? 'released' : state;
  return {
    holdId: h.ref_id,
    resolutionId: h.resolution_id,
    optionId: h.option_id,
    status,
    expiresAt: h.expires_at.toISOString(),
    ...(status === 'released' ? { releasedAt: h.ended_at?.toISOString() ?? null } : {}),
    ...(h.booking_id ? { bookingId: h.booking_id } : {}),
  };
}

/** The option.released event of a hold that ended released or expired (in the hold's tenant; `mode` default the hold's). */
export function holdReleasedEvent(
  hold: HoldRow,
  end: { state: 'released' | 'expired'; endedAt: Date },
  mode: 'live' | 'test' = hold.mode,
) {
  return {
    platformId: hold.platform_id,
    organizationId: hold.organization_id,
    mode,
    data: optionReleasedData({
      resolutionId: hold.resolution_id,
      optionId: hold.option_id,
      holdId: hold.ref_id,
      releasedAt: end.endedAt,
      reason: end.state,
    }),
  };
}
