import { z } from 'zod';
import { freeFormObject, ianaTimezone, instant, name200, text } from '../fields.js';

/** Path of /api/v2/resolutions/:id/options/:optionId/hold. */
export const HoldPath = z.object({ id: text(200, 1), optionId: text(200, 1) });

/** Hold lifetime in seconds: the default when the body names none, and the most it may ask. */
export const HOLD_TTL_SECONDS = { default: 120, max: 600 } as const;

/** Body of POST .../hold (may be absent). */
export const HoldBody = z.object({
  ttlSeconds: z
    .number()
    .int()
    .min(1)
    .max(HOLD_TTL_SECONDS.max)
    .optional()
    .meta({ description: `Hold lifetime in seconds (default ${HOLD_TTL_SECONDS.default}).` }),
});

/** A hold as answered. */
export const Hold = z.object({
  holdId: z.string(),
  resolutionId: z.string(),
  optionId: z.string(),
  status: z.enum(['active', 'released', 'expired']),
  expiresAt: instant(),
  releasedAt: instant().nullable().optional(),
  bookingId: z.string().optional(),
});

/** Body of POST /api/v2/resolutions/:id/confirm. */
export const ConfirmBody = z.object({
  optionId: text(200, 1),
  holdId: text(200, 1).optional(),
  customer: z.object({
    name: name200(),
    email: z.email().max(1000),
    lastname: text(200).optional(),
    timezone: ianaTimezone().optional(),
  }),
  metadata: freeFormObject('Free key-value data stored with the booking and answered as it was sent.').optional(),
});
