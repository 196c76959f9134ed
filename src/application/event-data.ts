import type { BookingRow } from '../persistence/booking-repository.js';
import type { OutboxEvent } from '../persistence/event-outbox.js';

/*
 * The data of every event type (SPEC part 6, CONTRACT part 6), declared once. Every event stored in the `events`
 * outbox is built by one of these functions (the `option.released` rows of holds that lapsed in another claim's way
 * too: endLapsedHolds builds them from the hold machine's decision).
 */

/** A booking's slot: ISO instants and the provider's IANA timezone. */
export interface EventSlot {
  start: string;
  end: string;
  timezone: string;
}

/**
 * `booking.confirmed`, `booking.cancelled`, `booking.completed`: SPEC's booking.confirmed plus `status`.
 * `resolutionId` is null for a booking made through v1 (no resolution). `rescheduledFrom` is present on a booking
 * made by a reschedule; `cancelledAt` and `reason` (null when none was given) on `booking.cancelled`.
 */
export interface BookingEventData {
  bookingId: string;
  resolutionId: string | null;
  providerId: string;
  slot: EventSlot;
  status: BookingRow['status'];
  rescheduledFrom?: string;
  cancelledAt?: string;
  reason?: string | null;
}

/** `booking.rescheduled`: the original booking, the new one, and the new slot (CONTRACT part 5 and 6). */
export interface BookingRescheduledData extends BookingEventData {
  status: 'rescheduled';
  rescheduledTo: string;
}

/** `resolution.resolved`, `resolution.zero_results`, `resolution.partial` (which adds `unknownProviders`). */
export interface ResolutionEventData {
  resolutionId: string;
  status: string;
  optionsReturned: number;
  requestId: string;
  unknownProviders?: number;
}

/** `option.held`. */
export interface OptionHeldData {
  resolutionId: string;
  optionId: string;
  holdId: string;
  expiresAt: string;
  reason: 'held';
}

/** `option.released`: a release by the client, or the end of the hold's lifetime (`releasedAt` = its expiry). */
export interface OptionReleasedData {
  resolutionId: string;
  optionId: string;
  holdId: string;
  releasedAt: string;
  reason: 'released' | 'expired';
}

/** `professional.created`, `professional.updated`. */
export interface ProfessionalEventData {
  providerId: string;
  externalId: string;
  profileVersion: number;
}

/** `provider_import.completed`. */
export interface ProviderImportCompletedData {
  importId: string;
  summary: Record<string, number>;
}

/** `calendar.connection_degraded`, `calendar.reconnect_required`. */
export interface CalendarEventData {
  providerId: string;
  calendarConnectionId: string;
  reason: string;
}

/** `waitlist.offered`: a waitlist entry was offered a freed slot (CONTRACT part 8). */
export interface WaitlistOfferedData {
  entryId: string;
  resolutionId: string;
  holdId: string;
  optionId: string;
  providerId: string;
  slotStart: string;
  expiresAt: string;
}

/** `waitlist.booked`: a waitlist entry's offer was confirmed into a booking. */
export interface WaitlistBookedData {
  entryId: string;
  resolutionId: string;
  holdId: string;
  bookingId: string;
}

/** Every event type and its data. */
export interface EventDataByType {
  'booking.confirmed': BookingEventData;
  'booking.cancelled': BookingEventData;
  'booking.completed': BookingEventData;
  'booking.rescheduled': BookingRescheduledData;
  'resolution.resolved': ResolutionEventData;
  'resolution.zero_results': ResolutionEventData;
  'resolution.partial': ResolutionEventData;
  'option.held': OptionHeldData;
  'option.released': OptionReleasedData;
  'professional.created': ProfessionalEventData;
  'professional.updated': ProfessionalEventData;
  'provider_import.completed': ProviderImportCompletedData;
  'calendar.connection_degraded': CalendarEventData;
  'calendar.reconnect_required': CalendarEventData;
  'waitlist.offered': WaitlistOfferedData;
  'waitlist.booked': WaitlistBookedData;
}

/** An event type of SPEC part 6. */
export type EventType = keyof EventDataByType;

function slotOf(b: BookingRow): EventSlot {
  return { start: b.start_at.toISOString(), end: b.end_at.toISOString(), timezone: b.timezone };
}

/** The data of `booking.confirmed` and `booking.completed`, from the booking as it is after the change. */
export function bookingEventData(b: BookingRow): BookingEventData {
  return {
    bookingId: b.id,
    resolutionId: b.resolution_id,
    providerId: b.provider_id,
    slot: slotOf(b),
    status: b.status,
    ...(b.rescheduled_from !== null ? { rescheduledFrom: b.rescheduled_from } : {}),
  };
}

/** The data of `booking.cancelled`, from the cancelled booking. */
export function bookingCancelledData(b: BookingRow, cancelledAt: Date, reason: string | null): BookingEventData {
  return { ...bookingEventData(b), cancelledAt: cancelledAt.toISOString(), reason };
}

/** The data of `booking.rescheduled`: `bookingId` is the original (now `rescheduled`), `slot` the new booking's. */
export function bookingRescheduledData(original: BookingRow, fresh: BookingRow): BookingRescheduledData {
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

/** The data of `resolution.*`; `unknownProviders` only for `resolution.partial`. */
export function resolutionEventData(
  r: { resolutionId: string; status: string; optionsReturned: number; requestId: string },
  unknownProviders?: number,
): ResolutionEventData {
  return {
    resolutionId: r.resolutionId,
    status: r.status,
    optionsReturned: r.optionsReturned,
    requestId: r.requestId,
    ...(unknownProviders !== undefined ? { unknownProviders } : {}),
  };
}

/** The data of `option.held`. */
export function optionHeldData(h: {
  resolutionId: string;
  optionId: string;
  holdId: string;
  expiresAt: Date;
}): OptionHeldData {
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
}): OptionReleasedData {
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
}): ProfessionalEventData {
  return { providerId: p.id, externalId: p.externalId, profileVersion: p.profileVersion };
}

/** The data of `provider_import.completed`. */
export function providerImportCompletedData(
  importId: string,
  summary: Record<string, number>,
): ProviderImportCompletedData {
  return { importId, summary: { ...summary } };
}

/** The data of `calendar.*`. */
export function calendarEventData(c: {
  providerId: string;
  calendarConnectionId: string;
  reason: string;
}): CalendarEventData {
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
): WaitlistOfferedData {
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
): WaitlistBookedData {
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
