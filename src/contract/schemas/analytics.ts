import { z } from 'zod';
import { nonNegativeInt } from '../fields.js';

/** Analytics periods: the window ends now and reaches back 7, 30 or 90 days. */
export const AnalyticsPeriod = z.enum(['last_7_days', 'last_30_days', 'last_90_days']);

/** Query of GET /api/v2/analytics. */
export const AnalyticsQuery = z.object({
  period: AnalyticsPeriod.optional().meta({ description: 'Default `last_30_days`.' }),
});

/** Metrics of one organization over a period (SPEC part 2). */
export const Analytics = z.object({
  resolutions: z.object({
    total: nonNegativeInt(),
    resolved: nonNegativeInt().meta({
      description: 'Made with one or more options (status as made; a later expiry changes nothing).',
    }),
    zeroResults: nonNegativeInt(),
    avgEvaluatedSlots: z
      .number()
      .min(0)
      .meta({ description: 'Mean evaluatedSlots per resolution, 2 decimals; 0 without resolutions.' }),
  }),
  bookings: z.object({
    total: nonNegativeInt().meta({ description: 'Bookings created in the period, in any status.' }),
    confirmed: nonNegativeInt().meta({
      description: 'Of those, now confirmed or completed (a completed booking was confirmed).',
    }),
    cancelled: nonNegativeInt(),
    rescheduled: nonNegativeInt(),
  }),
  conversionRate: z.number().min(0).meta({
    description:
      'Resolutions of the period that led to a booking / all resolutions of the period, 4 decimals; 0 without resolutions.',
  }),
  period: z.string(),
});
