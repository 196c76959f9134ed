import { z } from 'zod';

/** Analytics periods: the window ends now and reaches back 7, 30 or 90 days. */
export const AnalyticsPeriod = z.enum(['last_7_days', 'last_30_days', 'last_90_days']);

/** Query of GET /api/v2/analytics. */
export const AnalyticsQuery = z.object({
  period: AnalyticsPeriod.optional().meta({ description: 'Default `last_30_days`.' }),
});

/** Metrics of one organization over a period (SPEC part 2). */
export const Analytics = z.object({
  resolutions: z.object({
    total: z.number().int(),
    resolved: z.number().int().meta({ description: 'Made with one or more options (status as made; a later expiry changes nothing).' }),
    zeroResults: z.number().int(),
    avgEvaluatedSlots: z.number().meta({ description: 'Mean evaluatedSlots per resolution, 2 decimals; 0 without resolutions.' }),
  }),
  bookings: z.object({
    total: z.number().int().meta({ description: 'Bookings created in the period, in any status.' }),
    confirmed: z.number().int().meta({ description: 'Of those, now confirmed or completed (a completed booking was confirmed).' }),
    cancelled: z.number().int(),
    rescheduled: z.number().int(),
  }),
  conversionRate: z.number().meta({ description: 'Resolutions of the period that led to a booking / all resolutions of the period, 4 decimals; 0 without resolutions.' }),
  period: z.string(),
});
