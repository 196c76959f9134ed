import { encodeSlotId } from '../domain/availability/slot-id.js';
import type { ExampleDays } from './example-days.js';

/** A JSON Schema node as `z.toJSONSchema` writes it. */
type JsonSchema = Record<string, unknown>;

const ID_TAIL = '01jv3m8k2q0005t7w9c4x6b8dz';

/** Id prefixes the service gives its resources (`newId(prefix)`), by the field that names them. */
const ID_PREFIXES: Record<string, string> = {
  providerId: 'prv',
  serviceId: 'svc',
  resolutionId: 'res',
  holdId: 'hld',
  bookingId: 'bkg',
  organizationId: 'org',
  defaultOrganizationId: 'org',
  platformId: 'plt',
  keyId: 'key',
  policyId: 'pol',
  importId: 'imp',
  deliveryId: 'whd',
  eventId: 'evt',
  rescheduledFrom: 'bkg',
  rescheduledTo: 'bkg',
};

/** Realistic values by field name, for strings whose schema alone says too little. */
const STRINGS: Record<string, string> = {
  email: 'ada@example.com',
  timezone: 'America/New_York',
  name: 'Ada Lovelace',
  displayName: 'Dr. Ada Lovelace',
  lastname: 'Lovelace',
  externalId: 'ext-1042',
  clientRef: 'client-778',
  title: 'Initial consultation',
  slug: 'initial-consultation',
  currency: 'USD',
  url: 'https://hooks.example.com/scheduling',
  username: 'ada',
  location: 'Boston, MA',
  bio: 'Licensed clinical social worker.',
  notes: 'First visit.',
  reason: 'Schedule changed.',
  optionId: 'opt_1',
  requestId: 'req_5f2c9a',
  cursor: 'eyJpZCI6InBydl8wMSJ9',
  nextCursor: 'eyJpZCI6InBydl8wMSJ9',
  hint: 'service_live_…3f9a',
  key: 'service_live_4q8w2e6r9t1y3u5i7o0p2a4s6d8f',
  secret: 'whsec_MfKQ9r8GKYqXpLUE2Nc0F0Y4bOLd7fIw1yS0Y9lV6xk=',
  languageCodes: 'en',
  language: 'en',
  languages: 'en',
  modalityCodes: 'virtual',
  modality: 'virtual',
  serviceRegionCodes: 'US-MA',
  licenseRegionCodes: 'US-MA',
  regionCode: 'US-MA',
  insurancePlanCodes: 'aetna',
  insurance: 'aetna',
  ageGroupCodes: 'adult',
  specialtyCodes: 'anxiety',
  specialty: 'anxiety',
  professionCode: 'lcsw',
  professionCodes: 'lcsw',
  profession: 'lcsw',
  licenseTypeCode: 'lcsw',
  event: 'booking.confirmed',
  action: 'provider.create',
  resource_type: 'provider',
  message: 'Example message.',
  description: 'Example description.',
  suggestion: 'Widen the date range.',
  exclusionCode: 'LANGUAGE_MISMATCH',
  code: 'LANGUAGE_MISMATCH',
  reasonCode: 'NO_AVAILABILITY',
  period: 'last_30_days',
  label: '9:00 AM',
  serviceSlug: 'initial-consultation',
};

/** Numbers by field name; others take their minimum, or 1. */
const NUMBERS: Record<string, number> = {
  duration: 50,
  length: 50,
  durationMinutes: 50,
  slotIntervalMinutes: 50,
  price: 12000,
  statusCode: 200,
  latencyMs: 84,
  ttlSeconds: 120,
  score: 72.5,
  points: 30,
  status: 400,
  maxOptionsPerProvider: 3,
  panelCapacity: 25,
  panelCurrentCount: 12,
  avgEvaluatedSlots: 42.5,
  conversionRate: 0.25,
  limit: 20,
};

/** The field a value belongs to: the nearest key that is a property name, not a schema word such as `anyOf`. */
function fieldOf(path: string[]): string {
  for (let i = path.length - 1; i >= 0; i--) if (path[i] !== 'anyOf') return path[i]!;
  return '';
}

/** Instants already recorded when an example is read: on the served day, not ahead with the slot. */
const RECORDED_INSTANT =
  /^(created|updated|verified|revoked|firstSeen|lastSeen|generated|availabilityChecked|activated|resolved|released|cancelled|replayed)At$|^(timestamp|at)$/;

/** Fields whose schema says nothing of their form (`dateRange`'s `from` and `to`) that hold a date. */
const UNTYPED_DATES: Record<string, keyof ExampleDays> = { from: 'slotDay', to: 'rangeEnd' };

function stringExample(s: JsonSchema, path: string[], ctx: ExampleContext): string {
  const key = fieldOf(path);
  const { today, slotDay, nextYear } = ctx.days;
  if (s.format === 'date-time') {
    if (RECORDED_INSTANT.test(key)) return `${today}T08:00:00.000Z`;
    if (key === 'expiresAt') return `${today}T08:02:00.000Z`;
    return key === 'end' || key === 'end_time' ? `${slotDay}T13:50:00.000Z` : `${slotDay}T13:00:00.000Z`;
  }
  // A date that expires (a licence) runs a year from the served day, so the example licence is valid on the slot.
  if (s.format === 'date') return key === 'expiresAt' ? nextYear : slotDay;
  if (s.format === 'email') return STRINGS.email!;
  if (typeof s.pattern === 'string' && s.pattern.includes('[0-5]\\d')) return key === 'end' ? '17:00' : '09:00';
  // A slot id must decode (v1 create checks it): the example slot's.
  if (key === 'slotId')
    return encodeSlotId({
      providerId: `prv_${ID_TAIL}`,
      serviceId: `svc_${ID_TAIL}`,
      start: Date.parse(`${slotDay}T13:00:00.000Z`),
    });
  if (key === 'id' || key in ID_PREFIXES || /Id$/.test(key)) return `${ID_PREFIXES[key] ?? ctx.idPrefix}_${ID_TAIL}`;
  const value = STRINGS[key] ?? `example ${key || 'text'}`;
  return typeof s.maxLength === 'number' ? value.slice(0, s.maxLength) : value;
}

function numberExample(s: JsonSchema, path: string[]): number {
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  let n = NUMBERS[fieldOf(path)] ?? Math.max(min ?? 1, 1);
  if (min !== undefined && n < min) n = min;
  if (max !== undefined && n > max) n = max;
  return s.type === 'integer' ? Math.round(n) : n;
}

/** What an example is built with: the id prefix of a bare `id` and the dates of the served day. */
interface ExampleContext {
  idPrefix: string;
  days: ExampleDays;
}

/**
 * An example value for a JSON Schema: the schema's own `examples` when it has them, else one built from its types,
 * enums and bounds with realistic values chosen by field name, dated relative to the day the document is served
 * (`days`). Optional properties are filled too, so the example shows every field; `{not: {}}` (a field that must be
 * left out) is skipped. A bare `id` gets `idPrefix`.
 */
export function schemaExample(schema: unknown, days: ExampleDays, idPrefix = 'id'): unknown {
  return example(schema, [], { idPrefix, days });
}

function example(schema: unknown, path: string[], ctx: ExampleContext): unknown {
  const s = (schema ?? {}) as JsonSchema;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[k])) {
      const branches = s[k] as JsonSchema[];
      return example(branches.find((b) => b.type !== 'null') ?? branches[0], path, ctx);
    }
  }
  if (Array.isArray(s.allOf)) return example(Object.assign({}, ...(s.allOf as JsonSchema[])), path, ctx);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  const untypedDate = UNTYPED_DATES[fieldOf(path)];
  if (type === undefined && untypedDate !== undefined) return ctx.days[untypedDate];
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>)) {
        if (prop.not !== undefined && Object.keys(prop.not as object).length === 0) continue;
        out[name] = example(prop, [...path, name], ctx);
      }
      return out;
    }
    case 'array':
      return [example(s.items, path, ctx)];
    case 'string':
      return stringExample(s, path, ctx);
    case 'integer':
    case 'number':
      return numberExample(s, path);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return null;
  }
}
