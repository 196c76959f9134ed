import { z } from 'zod';
import { decodeSlotId } from '../../domain/availability/slot-id.js';
import { ServiceError } from '../../errors/service-error.js';
import { refusedMembers } from '../refused-members.js';
import {
  cursor,
  ianaTimezone,
  instant,
  isoDate,
  name200,
  nonNegativeInt,
  pageLimit,
  queryInt,
  text,
} from '../fields.js';

/** Every booking status (SPEC part 3). */
export const BookingStatus = z.enum(['pending', 'confirmed', 'cancelled', 'completed', 'rescheduled']);

/** Path of /api/v{1,2}/bookings/:id. */
export const BookingPath = z.object({ id: text(200, 1) });

/**
 * Query of GET /api/v2/bookings. The typed request also takes `skip` (AIP-158: bookings passed over after the
 * page token's position, for callers that page by number, as v1 REST does) and `include_total`.
 */
export const ListBookingsQuery = z.object({
  status: BookingStatus.optional(),
  providerId: text(200, 1).optional(),
  limit: pageLimit().meta({ description: 'Page size, default 50, at most 500.' }),
  cursor: cursor().optional(),
});

const SlotV2 = z.object({ start: instant(), end: instant(), timezone: z.string() });

/**
 * The v2 Booking shape (SPEC part 2); v1-created bookings show their attendee as `customer`. The typed message also
 * carries `confirmation_url` and the provider's `username` (what v1 REST shows of a booking).
 */
export const BookingV2 = z.object({
  id: z.string(),
  organizationId: z.string(),
  resolutionId: z.string().nullable(),
  optionId: z.string().nullable(),
  status: BookingStatus,
  provider: z.object({ id: z.string(), displayName: z.string() }),
  service: z.object({ id: z.string(), displayName: z.string(), durationMinutes: nonNegativeInt() }),
  customer: z.object({
    name: z.string(),
    email: z.string(),
    timezone: z.string().nullable(),
    lastname: z.string().optional(),
  }),
  slot: SlotV2,
  metadata: z.record(z.string(), z.unknown()).meta({
    description:
      'The `metadata` sent with the confirmation (`{}` when none). A booking stored before metadata was bounded to 8 levels answers what is nested deeper as null.',
  }),
  source: z.enum(['v1', 'v2']),
  rescheduledFrom: z.string().nullable(),
  rescheduledTo: z.string().nullable(),
  cancelledAt: instant().nullable(),
  createdAt: instant(),
  updatedAt: instant(),
});

/** Query of GET /api/v1/slots (all required; `eventTypeId` is the service id). */
export const ListSlotsV1Query = z.object({
  providerId: text(200, 1),
  eventTypeId: text(200, 1).meta({ description: 'The service (event type) id.' }),
  date: isoDate().meta({ description: "Local date in the provider's schedule timezone, YYYY-MM-DD." }),
});

/** A v1 slot (SPEC part 2). */
export const SlotV1 = z.object({
  id: z.string().meta({ description: 'Opaque slot id accepted by POST /api/v1/bookings.' }),
  date: z.string().meta({ description: 'Local date, YYYY-MM-DD.' }),
  time: z.string().meta({ description: 'Local wall-clock time, HH:MM.' }),
  label: z.string().meta({ description: 'Display text such as `9:00 AM`.' }),
  available: z.boolean(),
});

/** Answer of GET /api/v1/slots. */
export const SlotsV1Page = z.object({ slots: z.array(SlotV1), total: nonNegativeInt() });

/** A slot id issued by GET /api/v1/slots (openapi.json's example is one of the example day, schema-example.ts). */
const slotId = () =>
  z
    .string()
    .max(1024)
    .refine((s) => decodeSlotId(s) !== null, { message: 'is not a slot id issued by GET /api/v1/slots' });

/** Body of POST /api/v1/bookings. */
export const CreateBookingV1Body = z.object({
  providerId: text(200, 1),
  serviceId: text(200, 1),
  slotId: slotId(),
  attendee: z.object({
    name: name200(),
    email: z.email().max(1000),
    timezone: ianaTimezone().optional(),
  }),
  notes: text(5000).optional(),
});

/** Answer of POST /api/v1/bookings. */
export const BookingV1Created = z.object({
  data: z.object({
    id: z.string(),
    status: BookingStatus,
    title: z.string(),
    date: instant().meta({ description: 'Start, ISO 8601 UTC.' }),
    end_time: instant().meta({ description: 'End, ISO 8601 UTC.' }),
    tokenToConfirm: z.string(),
    resolutionId: z.string().nullable(),
  }),
});

/** Query of GET /api/v1/bookings. */
export const ListBookingsV1Query = z.object({
  page: queryInt(1, 1_000_000).optional().meta({ description: 'Page number, default 1.' }),
  limit: queryInt(1, 100).optional().meta({ description: 'Page size, default 20, at most 100.' }),
  status: BookingStatus.optional(),
});

/** A v1 list item. */
export const BookingV1ListItem = z.object({
  bookingId: z.string(),
  status: BookingStatus,
  provider: z.object({ name: z.string() }),
  start: instant(),
  end: instant(),
});

/** Answer of GET /api/v1/bookings. */
export const BookingsV1Page = z.object({
  bookings: z.array(BookingV1ListItem),
  total: nonNegativeInt(),
  page: nonNegativeInt(),
  limit: nonNegativeInt(),
});

/** The v1 detail shape. */
export const BookingV1Detail = z.object({
  bookingId: z.string(),
  status: BookingStatus,
  provider: z.object({ id: z.string(), name: z.string(), username: z.string().nullable() }),
  service: z.object({ title: z.string(), duration: nonNegativeInt() }),
  attendee: z.object({ name: z.string(), email: z.string() }),
  start: instant(),
  end: instant(),
  confirmationUrl: z.string().nullable(),
  rescheduledFrom: z.string().nullable(),
  rescheduledTo: z.string().nullable(),
});

/** Body of POST /api/v1/bookings/:id/reschedule: separate local date and time (a combined `datetime`/`start` is 422). */
export const RescheduleBookingV1Body = refusedMembers(
  z.object({
    date: isoDate(),
    time: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a HH:MM wall-clock time')
      .meta({ description: "HH:MM in the provider's schedule timezone." }),
    notes: text(5000).optional(),
  }),
  ['datetime', 'start'],
  (field) =>
    new ServiceError(
      'COMBINED_DATETIME_NOT_ACCEPTED',
      `Send separate \`date\` (YYYY-MM-DD) and \`time\` (HH:MM) fields instead of \`${field}\`.`,
      { field },
    ),
);

/** Answer of POST /api/v1/bookings/:id/reschedule: the new pending booking. */
export const BookingV1Rescheduled = z.object({
  data: z.object({ id: z.string(), status: BookingStatus, title: z.string(), date: instant(), end_time: instant() }),
});

/** Body of POST /api/v1/bookings/:id/cancel (the body may be absent). */
export const CancelBookingV1Body = z.object({ reason: text(1000).optional() });

/** Answer of POST /api/v1/bookings/:id/cancel (bare, CONTRACT part 5). */
export const BookingV1Cancelled = z.object({
  bookingId: z.string(),
  status: z.literal('cancelled'),
  cancelledAt: instant(),
});

/** Query of the e-mailed confirmation link. */
export const ConfirmBookingV1Query = z.object({ token: text(200, 1) });

/** JSON answer of the confirmation link (with `Accept: application/json`; otherwise a small HTML page). */
export const BookingV1ConfirmResult = z.object({ bookingId: z.string(), status: BookingStatus });
