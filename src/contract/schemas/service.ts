import { z } from 'zod';
import { cursor, instant, name200, nonNegativeInt, pageLimit, text } from '../fields.js';
import { serviceSlug } from '../../domain/service-slug.js';

/** How a session is held; `in_person` is accepted and stored as `in-person` (SPEC part 2 spells it hyphenated). */
export const ServiceModality = z.enum(['virtual', 'in-person', 'both']);

const modalityInput = () =>
  z
    .enum(['virtual', 'in-person', 'in_person', 'both'])
    .transform((m) => (m === 'in_person' ? 'in-person' : m))
    .meta({ description: '`virtual`, `in-person` (or `in_person`) or `both`.' });

const minutes = (min: number, max: number, description: string) =>
  z.number().int().min(min).max(max).meta({ description });

const serviceTitle = () =>
  name200().refine((t) => serviceSlug(t) !== '', {
    message: 'must contain at least one letter or digit (the slug is derived from it)',
  });

const servicePrice = () => z.number().int().min(0).max(100_000_000_000);

const PRICE = { description: 'In the smallest currency unit (cents); needs `currency`.' };
const CURRENCY = { description: 'ISO 4217 code; stored upper-case.' };

const currencyCode = () =>
  z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code such as USD')
    .transform((c) => c.toUpperCase());

/** Body of POST /api/v2/services. */
export const CreateServiceBody = z
  .object({
    providerId: text(200, 1),
    title: serviceTitle(),
    duration: minutes(5, 1440, 'Session length in minutes (5..1440).'),
    price: servicePrice().optional().meta(PRICE),
    currency: currencyCode().optional().meta(CURRENCY),
    modality: modalityInput().optional(),
    slotIntervalMinutes: minutes(5, 1440, 'Distance between slot starts; defaults to `duration`.').optional(),
    minimumNoticeMinutes: minutes(
      0,
      525_600,
      'Slots starting sooner than this are never offered; default 0.',
    ).optional(),
    bufferBeforeMinutes: minutes(0, 1440, 'Free time kept before a session; default 0.').optional(),
    bufferAfterMinutes: minutes(0, 1440, 'Free time kept after a session; default 0.').optional(),
  })
  .superRefine((b, ctx) => {
    if (b.price !== undefined && b.currency === undefined)
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'is required when price is set' });
  });

/**
 * Body of PATCH /api/v2/services/:id: the fields sent change, null clears an optional one (`slotIntervalMinutes`
 * null follows `duration` again); validated as on create, and the service after the change as a whole (a price
 * needs a currency). A new title gives a new slug.
 */
export const UpdateServiceBody = z.object({
  providerId: z.never({ error: 'cannot be changed; create a service for the other provider instead' }).optional(),
  title: serviceTitle().optional(),
  duration: minutes(5, 1440, 'Session length in minutes (5..1440).').optional(),
  price: servicePrice()
    .nullable()
    .optional()
    .meta({ description: `${PRICE.description} null clears it.` }),
  currency: currencyCode()
    .nullable()
    .optional()
    .meta({ description: `${CURRENCY.description} null clears it (not while there is a price).` }),
  modality: modalityInput()
    .nullable()
    .optional()
    .meta({ description: '`virtual`, `in-person` or `both`; null clears it.' }),
  slotIntervalMinutes: minutes(5, 1440, 'Distance between slot starts; null: the duration.').nullable().optional(),
  minimumNoticeMinutes: minutes(0, 525_600, 'Slots starting sooner than this are never offered.').optional(),
  bufferBeforeMinutes: minutes(0, 1440, 'Free time kept before a session.').optional(),
  bufferAfterMinutes: minutes(0, 1440, 'Free time kept after a session.').optional(),
});

/** Path of /api/v2/services/:id. */
export const ServicePath = z.object({ id: text(200, 1) });

/** Query of GET /api/v2/services. */
export const ListServicesQuery = z.object({
  providerId: text(200, 1).optional(),
  slug: text(200, 1).optional(),
  limit: pageLimit().meta({ description: 'Page size, default 50, at most 500.' }),
  cursor: cursor().optional(),
});

/** A service (session type) as answered. */
export const Service = z.object({
  id: z.string(),
  organizationId: z.string(),
  providerId: z.string(),
  title: z.string(),
  slug: z.string(),
  duration: nonNegativeInt(),
  price: nonNegativeInt().nullable(),
  currency: z.string().nullable(),
  modality: ServiceModality.nullable(),
  slotIntervalMinutes: nonNegativeInt(),
  minimumNoticeMinutes: nonNegativeInt(),
  bufferBeforeMinutes: nonNegativeInt(),
  bufferAfterMinutes: nonNegativeInt(),
  createdAt: instant(),
  updatedAt: instant(),
});

/** A removed service as DELETE answers it: the service as it was, plus `deleted: true`. */
export const DeletedService = Service.extend({ deleted: z.literal(true) });

/** The services list envelope. */
export const ServiceList = z.object({
  data: z.array(Service),
  total: nonNegativeInt(),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});

/** Query of GET /api/v1/event-types. */
export const ListEventTypesQuery = z.object({
  providerId: text(200, 1).optional(),
  limit: pageLimit().meta({ description: 'Page size, default 50, at most 500.' }),
  cursor: cursor().optional(),
});

/** The v1 view of a service: `title` and `length` (minutes). */
export const EventType = z.object({
  id: z.string(),
  providerId: z.string(),
  slug: z.string(),
  title: z.string(),
  length: nonNegativeInt(),
  price: nonNegativeInt().nullable(),
  currency: z.string().nullable(),
  modality: ServiceModality.nullable(),
});

/** The v1 event-types list envelope `{data, total, hasMore, nextCursor}` (CONTRACT parts 1 and 3). */
export const EventTypeList = z.object({
  data: z.array(EventType),
  total: nonNegativeInt(),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});
