import { z } from 'zod';
import { cursor, instant, isoTimestamp, name200, nonNegativeInt, pageLimit, text } from '../fields.js';
import { ResolutionConstraints, ResolutionPreferences } from './resolution.js';

const limit = () => pageLimit().meta({ description: 'Page size, default 50, at most 500.' });

/** Body of POST /api/v2/continuity: records (or refreshes) a client-provider relationship used as a ranking boost. */
export const CreateContinuityBody = z.object({
  providerId: text(200, 1),
  clientRef: text(200, 1).meta({
    description:
      'Your opaque reference of the client (no personal data needed); matches `preferences.clientRef` of a resolution.',
  }),
  lastSeenAt: isoTimestamp().optional().meta({
    description: 'When the client last saw the provider. Left out: null on a new record, unchanged on an existing one.',
  }),
});

/** Query of GET /api/v2/continuity. */
export const ListContinuityQuery = z.object({ clientRef: text(200, 1), limit: limit(), cursor: cursor().optional() });

/** A continuity record; one per (organization, clientRef, providerId). */
export const ContinuityRecord = z.object({
  id: z.string(),
  providerId: z.string(),
  clientRef: z.string(),
  lastSeenAt: instant().nullable(),
  createdAt: instant(),
});

/** Waitlist statuses (CONTRACT part 8): `waiting` -> `offered` -> `booked`, back to `waiting` when an offer lapses. */
export const WaitlistStatus = z.enum(['waiting', 'offered', 'booked', 'cancelled']);

/** The offer a waitlist entry holds: a resolution and a hold on a freed slot, both expiring at `expiresAt`. */
export const WaitlistOffer = z.object({
  resolutionId: z.string(),
  holdId: z.string().meta({ description: 'Confirm with this hold: POST /api/v2/resolutions/:resolutionId/confirm.' }),
  optionId: z.string(),
  providerId: z.string().meta({ description: 'The provider whose freed slot is offered.' }),
  slotStart: instant(),
  expiresAt: instant(),
});

/** Body of POST /api/v2/waitlist. */
export const CreateWaitlistEntryBody = z.object({
  serviceId: text(200, 1),
  customer: z.object({ name: name200(), email: z.email().max(1000) }),
  constraints: ResolutionConstraints.optional(),
  preferences: ResolutionPreferences.optional(),
  resolutionId: text(200, 1)
    .optional()
    .meta({ description: 'The (typically zero-result) resolution that led here; must be of this organization.' }),
});

/** Path of /api/v2/waitlist/:id. */
export const WaitlistEntryPath = z.object({ id: text(200, 1) });

/** Query of GET /api/v2/waitlist. */
export const ListWaitlistQuery = z.object({
  status: WaitlistStatus.optional(),
  limit: limit(),
  cursor: cursor().optional(),
});

/** A waitlist entry. */
export const WaitlistEntry = z.object({
  id: z.string(),
  status: WaitlistStatus,
  serviceId: z.string(),
  customer: z.object({ name: z.string(), email: z.string() }),
  constraints: z.record(z.string(), z.unknown()).nullable(),
  preferences: z.record(z.string(), z.unknown()).nullable(),
  resolutionId: z.string().nullable(),
  offer: WaitlistOffer.nullable().meta({
    description: 'The current offer while `offered`, the one booked once `booked`.',
  }),
  offersMade: nonNegativeInt().meta({ description: 'How many offers the entry has been made.' }),
  createdAt: instant(),
  updatedAt: instant(),
  cancelledAt: instant().nullable(),
});

/** Manual review statuses: `open` until resolved; a resolution that finds the provider unknown again reopens it. */
export const ManualReviewStatus = z.enum(['open', 'resolved']);

/** Query of GET /api/v2/manual-review. */
export const ListManualReviewQuery = z.object({
  status: ManualReviewStatus.optional().meta({ description: 'Default `open`.' }),
  limit: limit(),
  cursor: cursor().optional(),
});

/** Path of /api/v2/manual-review/:providerId/resolve. */
export const ManualReviewPath = z.object({ providerId: text(200, 1) });

/** A provider with unknown required data, as the manual-review queue lists it. */
export const ManualReviewEntry = z.object({
  providerId: z.string(),
  displayName: z.string(),
  reasons: z.array(z.object({ code: z.string(), field: z.string(), detail: z.string() })),
  firstSeenAt: instant(),
  lastSeenAt: instant(),
  status: ManualReviewStatus,
  resolvedAt: instant().nullable(),
});
