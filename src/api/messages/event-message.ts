import type { EventRow } from '../../persistence/event-repository.js';
import {
  EventData_OptionReleased_Reason,
  ResolutionStatus,
  type Event,
  type EventData,
  type ImportSummary,
} from '../../gen/scheduling/v1/resources.js';

/*
 * An event's data is stored as the JSON its webhook deliveries carry (jsonb, written by src/application/event-data.ts):
 * each member is read here by name into its typed field, a missing or null one as the field's unset value (text '',
 * a count 0, an instant or optional text unset), exactly as a delivery's JSON reads back.
 */

type Json = Record<string, unknown>;

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
const optionalText = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));
const count = (v: unknown): number => (v === undefined || v === null ? 0 : Number(v));
const instant = (v: unknown): Date | undefined => (v === undefined || v === null ? undefined : new Date(String(v)));
const object = (v: unknown): Json | undefined => (v === undefined || v === null ? undefined : (v as Json));

/** A resolution's status as the typed API names it. */
const RESOLUTION_STATUS: Record<string, ResolutionStatus> = {
  resolved: ResolutionStatus.RESOLUTION_STATUS_RESOLVED,
  zero_results: ResolutionStatus.RESOLUTION_STATUS_ZERO_RESULTS,
};

/** Why a hold ended, as the typed API names it. */
const RELEASE_REASON: Record<string, EventData_OptionReleased_Reason> = {
  released: EventData_OptionReleased_Reason.REASON_RELEASED,
  expired: EventData_OptionReleased_Reason.REASON_EXPIRED,
};

/** A booking event's slot. */
function slotMessage(v: unknown) {
  const s = object(v);
  return s && { start: instant(s.start), end: instant(s.end), timezone: text(s.timezone) };
}

/** The members every `booking.*` event's data has. */
function bookingFields(d: Json) {
  return {
    bookingId: text(d.bookingId),
    resolutionId: optionalText(d.resolutionId),
    providerId: text(d.providerId),
    slot: slotMessage(d.slot),
    status: text(d.status),
    rescheduledFrom: optionalText(d.rescheduledFrom),
  };
}

/** The members of a `resolution.resolved` or `resolution.zero_results` event's data. */
function resolutionFields(d: Json) {
  return {
    resolutionId: text(d.resolutionId),
    status: text(d.status),
    optionsReturned: count(d.optionsReturned),
    requestId: text(d.requestId),
  };
}

/** A provider import's counts. */
function importSummaryMessage(v: unknown): ImportSummary | undefined {
  const s = object(v);
  return (
    s && {
      received: count(s.received),
      created: count(s.created),
      updated: count(s.updated),
      unchanged: count(s.unchanged),
      invalid: count(s.invalid),
      deactivated: count(s.deactivated),
    }
  );
}

/** An event's data as the case its type names; a type without a case sets none. */
export function eventDataMessage(type: string, d: Json): EventData {
  switch (type) {
    case 'professional.created':
    case 'professional.updated': {
      const value = {
        providerId: text(d.providerId),
        externalId: text(d.externalId),
        profileVersion: count(d.profileVersion),
      };
      return type === 'professional.created'
        ? { kind: { $case: 'professionalCreated', value } }
        : { kind: { $case: 'professionalUpdated', value } };
    }
    case 'provider_import.completed':
      return {
        kind: {
          $case: 'providerImportCompleted',
          value: { importId: text(d.importId), summary: importSummaryMessage(d.summary) },
        },
      };
    case 'resolution.resolved':
      return { kind: { $case: 'resolutionResolved', value: resolutionFields(d) } };
    case 'resolution.zero_results':
      return { kind: { $case: 'resolutionZeroResults', value: resolutionFields(d) } };
    case 'resolution.partial':
      return {
        kind: {
          $case: 'resolutionPartial',
          value: {
            resolutionId: text(d.resolutionId),
            resolutionStatus: RESOLUTION_STATUS[text(d.status)] ?? ResolutionStatus.RESOLUTION_STATUS_UNSPECIFIED,
            optionsReturned: count(d.optionsReturned),
            requestId: text(d.requestId),
            unknownProviders: count(d.unknownProviders),
          },
        },
      };
    case 'option.held':
      return {
        kind: {
          $case: 'optionHeld',
          value: {
            resolutionId: text(d.resolutionId),
            optionId: text(d.optionId),
            holdId: text(d.holdId),
            expiresAt: instant(d.expiresAt),
            reason: text(d.reason),
          },
        },
      };
    case 'option.released':
      return {
        kind: {
          $case: 'optionReleased',
          value: {
            resolutionId: text(d.resolutionId),
            optionId: text(d.optionId),
            holdId: text(d.holdId),
            releasedAt: instant(d.releasedAt),
            reason: RELEASE_REASON[text(d.reason)] ?? EventData_OptionReleased_Reason.REASON_UNSPECIFIED,
          },
        },
      };
    case 'booking.confirmed':
      return { kind: { $case: 'bookingConfirmed', value: bookingFields(d) } };
    case 'booking.rescheduled':
      return {
        kind: { $case: 'bookingRescheduled', value: { ...bookingFields(d), rescheduledTo: text(d.rescheduledTo) } },
      };
    case 'booking.cancelled':
      return {
        kind: {
          $case: 'bookingCancelled',
          value: { ...bookingFields(d), cancelledAt: instant(d.cancelledAt), reason: optionalText(d.reason) },
        },
      };
    case 'booking.completed':
      return { kind: { $case: 'bookingCompleted', value: bookingFields(d) } };
    case 'calendar.connection_degraded':
    case 'calendar.reconnect_required': {
      const value = {
        providerId: text(d.providerId),
        calendarConnectionId: text(d.calendarConnectionId),
        reason: text(d.reason),
      };
      return type === 'calendar.connection_degraded'
        ? { kind: { $case: 'calendarConnectionDegraded', value } }
        : { kind: { $case: 'calendarReconnectRequired', value } };
    }
    case 'waitlist.offered':
      return {
        kind: {
          $case: 'waitlistOffered',
          value: {
            entryId: text(d.entryId),
            resolutionId: text(d.resolutionId),
            holdId: text(d.holdId),
            optionId: text(d.optionId),
            providerId: text(d.providerId),
            slotStart: instant(d.slotStart),
            expiresAt: instant(d.expiresAt),
          },
        },
      };
    case 'waitlist.booked':
      return {
        kind: {
          $case: 'waitlistBooked',
          value: {
            entryId: text(d.entryId),
            resolutionId: text(d.resolutionId),
            holdId: text(d.holdId),
            bookingId: text(d.bookingId),
          },
        },
      };
    default:
      return {};
  }
}

/**
 * The `Event` message of an event row: the envelope its webhook deliveries carry, with its delivery's latest attempt
 * (0 when none was made) and its data as the case its type names.
 */
export function eventMessage(row: EventRow): Event {
  const data = object(row.data);
  return {
    id: row.id,
    apiVersion: row.api_version,
    createdAt: row.created_at,
    organizationId: row.organization_id,
    attempt: count(row.attempt),
    type: row.type,
    eventData: data && eventDataMessage(row.type, data),
  };
}
