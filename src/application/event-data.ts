import type { z } from 'zod';
import type { EVENT_DATA_SCHEMAS } from '../contract/schemas/event.js';
import type { BookingRow } from '../persistence/booking-repository.js';
import type { OutboxEvent } from '../persistence/event-outbox.js';

/*
 * The data of every event type (SPEC part 6, CONTRACT part 6), declared once. Every event stored in the `events`
 * outbox is built by one of these functions (the `option.released` rows of holds that lapsed in another claim's way
 * too: endLapsedHolds builds them from the hold machine's decision).
 */

/** The data of one event type, as its published zod schema (src/contract/schemas/event.ts) reads it. */
type DataOf<T extends EventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

/** An event type of SPEC part 6. */
export type EventType = keyof typeof EVENT_DATA_SCHEMAS;

/** Every event type and its data: the published schemas' types, so the builders below cannot drift from them. */
export type EventDataByType = { [T in EventType]: DataOf<T> };

type EventSlot = DataOf<'booking.confirmed'>['slot'];

function slotOf(b: BookingRow): EventSlot {
  return { start: b.start_at.toISOString(), end: b.end_at.toISOString(), timezone: b.timezone };
}

/**
 * The data of `booking.confirmed` or `booking.completed`, from the booking as it is after the change (its status is
 * the one the type names: the booking machine moved it there).
 */
export function bookingEventData<T extends 'booking.confirmed' | 'booking.completed'>(
  _type: T,
  b: BookingRow,
): DataOf<T> {
  return {
    bookingId: b.id,
    resolutionId: b.resolution_id,
    providerId: b.provider_id,
    slot: slotOf(b),
    status: b.status,
    ...(b.rescheduled_from !== null ? { rescheduledFrom: b.rescheduled_from } : {}),
  } as DataOf<T>;
}

/** The data of `booking.cancelled`, from the cancelled booking. */
export function bookingCancelledData(
  b: BookingRow,
  cancelledAt: Date,
  reason: string | null,
): DataOf<'booking.cancelled'> {
  return {
    ...bookingEventData('booking.confirmed', b),
    status: 'cancelled',
    cancelledAt: cancelledAt.toISOString(),
    reason,
  };
}

/** The data of `booking.rescheduled`: `bookingId` is the original (now `rescheduled`), `slot` the new booking's. */
export function bookingRescheduledData(original: BookingRow, fresh: BookingRow): DataOf<'booking.rescheduled'> {
  return {
    bookingId: original.id,
    resolutionId: original.resolution_id,
    providerId: fresh.provider_id,
    slot: slotOf(fresh),
    status: 'rescheduled',
    ...(original.rescheduled_from !== null ? { rescheduledFrom: original.rescheduled_from } : {}),
    rescheduledTo: fresh.id,
  };
}

/** The facts of a resolution its events carry. */
interface ResolutionFacts {
  resolutionId: string;
  status: 'resolved' | 'zero_results';
  optionsReturned: number;
  requestId: string;
}

/** The data of `resolution.resolved` or `resolution.zero_results`. */
export function resolutionEventData(r: ResolutionFacts): DataOf<'resolution.resolved' | 'resolution.zero_results'> {
  return {
    resolutionId: r.resolutionId,
    status: r.status,
    optionsReturned: r.optionsReturned,
    requestId: r.requestId,
  } as DataOf<'resolution.resolved' | 'resolution.zero_results'>;
}

/** The data of `resolution.partial`: the outcome's data and the count of providers left unknown. */
export function resolutionPartialData(r: ResolutionFacts, unknownProviders: number): DataOf<'resolution.partial'> {
  return { ...resolutionEventData(r), unknownProviders };
}

/** The data of `option.held`. */
export function optionHeldData(h: {
  resolutionId: string;
  optionId: string;
  holdId: string;
  expiresAt: Date;
}): DataOf<'option.held'> {
  return {
    resolutionId: h.resolutionId,
    optionId: h.optionId,
    holdId: h.holdId,
    expiresAt: h.expiresAt.toISOString(),
    reason: 'held',
  };
}

/** The data of `option.released`. */
export function optionReleasedData(h: {
  resolutionId: string;
  optionId: string;
  holdId: string;
  releasedAt: Date;
  reason: 'released' | 'expired';
}): DataOf<'option.released'> {
  return {
    resolutionId: h.resolutionId,
    optionId: h.optionId,
    holdId: h.holdId,
    releasedAt: h.releasedAt.toISOString(),
    reason: h.reason,
  };
}

/** The data of `professional.*`. */
export function professionalEventData(p: {
  id: string;
  externalId: string;
  profileVersion: number;
}): DataOf<'professional.created'> {
  return { providerId: p.id, externalId: p.externalId, profileVersion: p.profileVersion };
}

/** The data of `provider_import.completed`. */
export function providerImportCompletedData(
  importId: string,
  summary: DataOf<'provider_import.completed'>['summary'],
): DataOf<'provider_import.completed'> {
  return { importId, summary: { ...summary } };
}

/** The data of `calendar.*`. */
export function calendarEventData(c: {
  providerId: string;
  calendarConnectionId: string;
  reason: string;
}): DataOf<'calendar.reconnect_required'> {
  return { providerId: c.providerId, calendarConnectionId: c.calendarConnectionId, reason: c.reason };
}

/** The data of `waitlist.offered`. */
export function waitlistOfferedData(
  entryId: string,
  o: {
    resolutionId: string;
    holdId: string;
    optionId: string;
    providerId: string;
    slotStart: string;
    expiresAt: string;
  },
): DataOf<'waitlist.offered'> {
  return {
    entryId,
    resolutionId: o.resolutionId,
    holdId: o.holdId,
    optionId: o.optionId,
    providerId: o.providerId,
    slotStart: o.slotStart,
    expiresAt: o.expiresAt,
  };
}

/** The data of `waitlist.booked`. */
export function waitlistBookedData(
  entryId: string,
  o: { resolutionId: string; holdId: string },
  bookingId: string,
): DataOf<'waitlist.booked'> {
  return { entryId, resolutionId: o.resolutionId, holdId: o.holdId, bookingId };
}

/** An outbox event whose data is checked against its type's declared shape. */
export function outboxEvent<T extends EventType>(
  type: T,
  data: EventDataByType[T],
  at: { platformId: string; organizationId: string; mode: 'live' | 'test'; createdAt: Date },
): OutboxEvent {
  return { ...at, type, data: data as unknown as Record<string, unknown> };
}
