import { holdMachine } from '../../../machines/hold-machine.js';
import { machineStep } from './machine-step.js';

/** A hold's ledger row (a slot_claims row of kind 'hold'). */
export interface HoldRow {
  ref_id: string;
  organization_id: string;
  platform_id: string;
  provider_id: string;
  resolution_id: string;
  option_id: string;
  active: boolean;
  expires_at: Date;
  ended_at: Date | null;
  end_reason: string | null;
  booking_id: string | null;
  mode: 'live' | 'test';
  created_at: Date;
}

/** The hold machine state of a ledger row at `now` (a lapsed active hold is already expired). */
export function holdStateOf(h: HoldRow): 'active' | 'released' | 'expired' | 'consumed' {
  if (h.active) return 'active';
  if (h.end_reason === 'released') return 'released';
  if (h.end_reason === 'consumed') return 'consumed';
  return 'expired';
}

/** Decides a hold event with the hold machine, from the ledger row. */
export function holdStep(h: HoldRow, event: { type: 'RELEASE'; at: string } | { type: 'CONFIRM'; bookingId: string; at: string } | { type: 'EXPIRE'; at: string }) {
  const context = {
    holdId: h.ref_id, resolutionId: h.resolution_id, optionId: h.option_id, createdAt: h.created_at.toISOString(), expiresAt: h.expires_at.toISOString(),
    releasedAt: h.end_reason === 'released' ? h.ended_at?.toISOString() ?? null : null, expiredAt: h.end_reason === 'expired' ? h.expires_at.toISOString() : null,
    consumedAt: h.end_reason === 'consumed' ? h.ended_at?.toISOString() ?? null : null, bookingId: h.booking_id,
  };
  return machineStep(holdMachine, holdStateOf(h), context, event);
}

/** The hold as answered (CONTRACT part 5): an expired hold reads `expired`; a hold used by a booking reads `released`. */
export function toHoldView(h: HoldRow, now: Date) {
  const state = h.active && h.expires_at.getTime() <= now.getTime() ? 'expired' : holdStateOf(h);
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
