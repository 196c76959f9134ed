import { z } from 'zod';
import { cursor, ianaTimezone, instant, name200, nonNegativeInt, pageLimit, text } from '../fields.js';

/** Plans in increasing order (replay needs `launch` or higher). */
export const PLANS = ['free', 'launch', 'scale', 'enterprise'] as const;

/** An organization's plan: one enum (`Plan`) in the typed API, wherever it is set or answered. */
export const Plan = z.enum(PLANS);

/** Organization settings (CONTRACT part 2). */
export const OrganizationSettings = z.object({
  plan: Plan.optional(),
  allowUnverifiable: z.boolean().optional(),
  timezone: ianaTimezone().optional(),
  waitlistOfferTtlSeconds: z.number().int().min(60).max(3600).optional().meta({
    description: 'How long a waitlist offer (its resolution and hold) lasts, in seconds: 60..3600, default 900.',
  }),
});

/** Body of POST /api/v2/organizations. */
export const CreateOrganizationBody = z.object({
  externalId: name200(),
  name: name200(),
  settings: OrganizationSettings.optional(),
});

/** Body of PATCH /api/v2/organizations/:id. */
export const UpdateOrganizationBody = z.object({
  name: name200().optional(),
  settings: OrganizationSettings.optional(),
});

/** An organization's settings as answered: every setting with its value. */
export const OrganizationSettingsView = z.object({
  plan: Plan,
  allowUnverifiable: z.boolean(),
  timezone: z.string().nullable(),
  waitlistOfferTtlSeconds: z.number().int().min(60).max(3600),
});

/** An organization as answered. */
export const Organization = z.object({
  id: z.string(),
  platformId: z.string(),
  externalId: z.string(),
  name: z.string(),
  settings: OrganizationSettingsView,
  providerGraphVersion: nonNegativeInt(),
  createdAt: instant(),
  updatedAt: instant(),
});

/** Query of GET /api/v2/organizations. */
export const ListOrganizationsQuery = z.object({ limit: pageLimit(), cursor: cursor().optional() });

/** Path of /api/v2/organizations/:id. */
export const OrganizationPath = z.object({ id: text(200, 1) });

/** Counts by status; every status of the resource is present (0 when none). */
const countsBy = <T extends readonly [string, ...string[]]>(statuses: T) =>
  z.object(Object.fromEntries(statuses.map((s) => [s, nonNegativeInt()])) as Record<T[number], z.ZodNumber>);

/** Answer of GET /api/v2/organizations/:id/overview: the organization and counts of what it holds. */
export const OrganizationOverview = z.object({
  organization: Organization,
  counts: z.object({
    providers: z
      .object({ active: nonNegativeInt(), total: nonNegativeInt() })
      .meta({ description: '`active`: providers with status `active`.' }),
    services: nonNegativeInt(),
    bookings: countsBy(['pending', 'confirmed', 'cancelled', 'completed', 'rescheduled'] as const),
    resolutionsLast24h: nonNegativeInt().meta({
      description: 'Resolutions created in the 24 hours before `generatedAt`.',
    }),
    activeHolds: nonNegativeInt().meta({ description: 'Holds whose slot is still claimed and not yet expired.' }),
    manualReviewOpen: nonNegativeInt(),
    webhookDeliveries: countsBy(['pending', 'delivered', 'failed', 'dead_lettered', 'suppressed'] as const).meta({
      description: 'Deliveries by status (`failed`: a retry is scheduled; `suppressed`: test mode, never sent).',
    }),
    auditEvents: nonNegativeInt(),
  }),
  generatedAt: instant(),
});
