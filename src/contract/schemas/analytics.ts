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

/** The request attributes network adequacy is read by (CONTRACT part 8). */
export const AdequacyDimension = z.enum(['language', 'license_region', 'insurance', 'specialty', 'modality']);

/** Query of GET /api/v2/analytics/network-adequacy. */
export const NetworkAdequacyQuery = z.object({
  period: AnalyticsPeriod.optional().meta({ description: 'Default `last_30_days`.' }),
  dimension: AdequacyDimension.meta({
    description:
      'The constraint read: `language` (languageCodes), `license_region` (licenseRegionCodes), `insurance` (insurancePlanCodes), `specialty` (specialtyCodes) or `modality` (modalityCodes).',
  }),
});

/** One value of the dimension that resolutions of the period asked for. */
export const NetworkAdequacyRow = z.object({
  value: z.string().meta({ description: 'The normalized code, e.g. `es`, `US-CA`, `virtual`.' }),
  providers: nonNegativeInt().meta({
    description:
      'Active, searchable providers of the organization that have the value now (for license_region: an active licence of that region not expired today).',
  }),
  acceptingNewClients: nonNegativeInt().meta({ description: 'Of those providers, the ones accepting new clients.' }),
  resolutions: nonNegativeInt().meta({
    description: 'Resolutions created in the period whose constraints named the value.',
  }),
  zeroResultRate: z
    .number()
    .min(0)
    .max(1)
    .meta({ description: 'Of those resolutions, the share made with zero results, 4 decimals.' }),
  medianDaysToFirstOption: z.number().min(0).nullable().meta({
    description:
      "Median days from a resolution's creation to the start of its first (earliest) option, over those resolutions that returned options: the wait of the one at rank ceil(n/2) in wait order, told within 2.5% (the middle of its 5%-wide histogram bucket), 2 decimals; null when none returned options.",
  }),
  p90DaysToFirstOption: z.number().min(0).nullable().meta({
    description:
      '90th percentile of the same days (interpolated), 2 decimals; null when no resolution returned options.',
  }),
  topExclusionCodes: z.array(z.object({ code: z.string(), count: nonNegativeInt() })).meta({
    description:
      "The five exclusion codes that excluded the most providers over those resolutions (sum of each resolution's exclusionSummary), most first.",
  }),
});

/** Network adequacy of one organization over a period (CONTRACT part 8). */
export const NetworkAdequacy = z.object({
  period: z.string(),
  dimension: z.string(),
  rows: z
    .array(NetworkAdequacyRow)
    .meta({ description: 'One row per value asked for, most asked first, then by value.' }),
});
