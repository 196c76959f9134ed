import fc from 'fast-check';
import type { FuzzRequest, WireValue } from './fuzz-request.js';
import { FUZZ_FEED_URL, FUZZ_HOOK_URL } from './fuzz-fixtures.js';

/** A parameter of an operation, as openapi.json states it. */
export interface FuzzParam {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: { type?: string; enum?: string[]; pattern?: string };
}

/** One operation of openapi.json, with what the fuzz needs to call it. */
export interface FuzzOperation {
  /** `METHOD /path/{template}`. */
  key: string;
  method: string;
  route: string;
  params: FuzzParam[];
  /** The request body example, with fixture markers in place of the example's ids. */
  body?: unknown;
  platformOnly: boolean;
  authNone: boolean;
  v1: boolean;
}

/** Fixture names of path parameters, by the segment before them. */
const PATH_KINDS: Record<string, string> = {
  'organizations/{id}': 'org',
  'api-keys/{id}': 'apiKey',
  'providers/{id}': 'provider',
  'professionals/{id}': 'provider',
  'services/{id}': 'service',
  'calendar-connections/{id}': 'calendar',
  'provider-imports/{importId}': 'import',
  'resolutions/{id}': 'resolution',
  'options/{optionId}': 'heldOption',
  'bookings/{id}': 'bookingV2',
  'ranking-policies/{id}': 'policy',
  'waitlist/{id}': 'waitlist',
  'manual-review/{providerId}': 'reviewProvider',
  'deliveries/{id}': 'delivery',
  'webhooks/{deliveryId}': 'delivery',
  'events/{id}': 'event',
};

/**
 * Routes whose success uses up or changes what it names: their valid calls name resources made for them alone, so
 * the fixtures every other call reads stay as they were (a PATCH of a provider with the example body would expire its
 * licence; one of the organization would drop its plan).
 */
const OWN_RESOURCES: Record<string, Record<string, string>> = {
  'PATCH /api/v2/organizations/{id}': { id: 'fresh.org' },
  'DELETE /api/v2/api-keys/{id}': { id: 'fresh.apiKey' },
  'PATCH /api/v2/providers/{id}': { id: 'fresh.provider' },
  'DELETE /api/v2/providers/{id}': { id: 'fresh.provider' },
  'PATCH /api/v2/services/{id}': { id: 'fresh.service' },
  'DELETE /api/v2/services/{id}': { id: 'fresh.service' },
  'PATCH /api/v2/calendar-connections/{id}': { id: 'fresh.calendar' },
  'DELETE /api/v2/calendar-connections/{id}': { id: 'fresh.calendar' },
  'DELETE /api/v2/waitlist/{id}': { id: 'fresh.waitlist' },
  'POST /api/v2/resolutions/{id}/options/{optionId}/hold': { id: 'fresh.resolution', optionId: 'fresh.option' },
  'DELETE /api/v2/resolutions/{id}/options/{optionId}/hold': { id: 'fresh.resolution', optionId: 'fresh.option' },
  'POST /api/v2/resolutions/{id}/confirm': { id: 'fresh.resolution' },
  'GET /api/v1/bookings/{id}/confirm': { id: 'fresh.bookingV1' },
  'POST /api/v1/bookings/{id}/reschedule': { id: 'fresh.bookingV1' },
  'POST /api/v1/bookings/{id}/cancel': { id: 'fresh.bookingV1' },
  'POST /api/v2/webhooks/deliveries/{id}/replay': { id: 'liveDelivery' },
  'POST /api/v2/webhooks/{deliveryId}/replay': { deliveryId: 'liveDelivery' },
};

/**
 * Routes that need a live key (they send webhooks, or change the webhook configuration): their valid calls use the
 * platform's live key.
 */
const LIVE_ONLY = new Set([
  'PUT /api/v2/webhooks',
  'POST /api/v2/webhooks/test',
  'POST /api/v2/webhooks/deliveries/{id}/replay',
  'POST /api/v2/webhooks/{deliveryId}/replay',
]);

/** Fixtures a valid call needs to exist without naming them (a hold to release). */
const NEEDS: Record<string, string[]> = { 'DELETE /api/v2/resolutions/{id}/options/{optionId}/hold': ['fresh.hold'] };

/** Fixture names of body fields, by field name, then per operation. */
const BODY_REFS: Record<string, string> = {
  providerId: 'provider',
  serviceId: 'service',
  policyId: 'policy',
  resolutionId: 'resolution',
  organizationId: 'org',
  optionId: 'fresh.option',
  holdId: 'fresh.hold',
  slotId: 'fresh.slot',
  externalId: 'fresh.externalId',
};
const BODY_REFS_BY_OPERATION: Record<string, Record<string, string>> = {
  // One schedule per provider: a new schedule is for a new provider.
  'POST /api/v2/calendar-connections': { providerId: 'fresh.provider' },
  'POST /api/v1/resolutions': { service: 'service' },
  // A service's slug comes from its title, unique per provider.
  'POST /api/v2/services': { title: 'fresh.externalId' },
};
/** Body fields set to a fixed value, per operation (an import that deactivates the fixtures would end the run's depth). */
const BODY_VALUES: Record<string, Record<string, unknown>> = {
  'POST /api/v2/provider-imports': { deactivateMissing: false },
  'POST /api/v2/api-keys': { type: 'organization_test' },
  // A day no fixture books (resolutions and v1 slots rotate over the weeks before it).
  'POST /api/v1/bookings/{id}/reschedule': { date: '2026-08-03' },
};

/** Valid query values by parameter name (enums come from the schema). */
const QUERY_VALUES: Record<string, unknown[]> = {
  limit: ['1', '2', '20', '100'],
  page: ['1', '2'],
  providerId: [{ $ref: 'provider' }],
  eventTypeId: [{ $ref: 'service' }],
  importId: [{ $ref: 'import' }],
  date: ['2026-05-04', '2026-05-05', '2026-05-09'],
  clientRef: ['client-778'],
  externalId: [{ $ref: 'providerExternalId' }],
  resource_id: [{ $ref: 'provider' }],
  token: [{ $ref: 'fresh.token' }],
  action: ['provider.create', 'resolution.create'],
  resource_type: ['provider', 'booking'],
  exclusionCode: ['LANGUAGE_MISMATCH'],
  location: ['Boston, MA'],
  slug: ['initial-consultation'],
  specialtyCodes: ['anxiety'],
  specialty: ['anxiety'],
  languageCodes: ['en'],
  language: ['en'],
  professionCode: ['lcsw'],
  profession: ['lcsw'],
  modalityCodes: ['virtual'],
  modality: ['virtual'],
};

/** Actors the inspector can show: kind and fixture. */
const ACTORS: [string, string][] = [
  ['resolution', 'resolution'],
  ['hold', 'hold'],
  ['booking', 'bookingV2'],
  ['booking', 'bookingV1'],
];

/** Replaces the example's ids and unique names with fixture markers. */
function withFixtures(key: string, v: unknown): unknown {
  const refs = { ...BODY_REFS, ...BODY_REFS_BY_OPERATION[key] };
  if (Array.isArray(v)) return v.map((x) => withFixtures(key, x));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k in (BODY_VALUES[key] ?? {})) out[k] = BODY_VALUES[key]![k];
      else if (k === 'url') out[k] = key === 'PUT /api/v2/webhooks' ? FUZZ_HOOK_URL : FUZZ_FEED_URL;
      else if (k === 'holdId' && key !== 'POST /api/v2/resolutions/{id}/confirm') out[k] = x;
      else if (typeof x === 'string' && refs[k]) out[k] = { $ref: refs[k] };
      else out[k] = withFixtures(key, x);
    }
    return out;
  }
  return v;
}

/** The operations of openapi.json. */
export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): FuzzOperation[] {
  const ops: FuzzOperation[] = [];
  for (const [route, methods] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(methods)) {
      const method = m.toUpperCase();
      const key = `${method} ${route}`;
      const example = op.requestBody?.content?.['application/json']?.example;
      ops.push({
        key,
        method,
        route,
        params: (op.parameters ?? []) as FuzzParam[],
        ...(example !== undefined ? { body: withFixtures(key, example) } : {}),
        platformOnly: op['x-platform-key-required'] === true,
        authNone: Array.isArray(op.security) && op.security.length === 0,
        v1: route.startsWith('/api/v1/'),
      });
    }
  }
  return ops;
}

/** The valid path values of an operation. */
function validPath(op: FuzzOperation): fc.Arbitrary<Record<string, WireValue>> {
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  if (names.includes('kind') && names.includes('id')) {
    return fc.constantFrom(...ACTORS).map(([kind, ref]) => ({
      kind: { value: kind, encoding: 'uri' },
      id: { value: { $ref: ref }, encoding: 'uri' },
    }));
  }
  const segments = op.route.split('/');
  const entries = names.map((name): fc.Arbitrary<[string, WireValue]> => {
    const param = op.params.find((p) => p.in === 'path' && p.name === name)!;
    if (param.schema.enum)
      return fc.constantFrom(...param.schema.enum).map((value) => [name, { value, encoding: 'uri' }]);
    const own = OWN_RESOURCES[op.key]?.[name];
    const at = segments.indexOf(`{${name}}`);
    const kind =
      own ?? (op.v1 && segments[at - 1] === 'bookings' ? 'bookingV1' : PATH_KINDS[`${segments[at - 1]}/{${name}}`]);
    if (!kind) throw new Error(`fuzz: no fixture for path parameter ${name} of ${op.key}`);
    return fc.constant([name, { value: { $ref: kind }, encoding: 'uri' }]);
  });
  return fc.tuple(...entries).map((e) => Object.fromEntries(e));
}

/** Valid query parameters: the required ones and some optional ones. */
function validQuery(op: FuzzOperation): fc.Arbitrary<[string, WireValue][]> {
  const params = op.params.filter((p) => p.in === 'query' && p.name !== 'cursor');
  // A boolean parameter (openapi.json types `queryBool` as boolean) travels as its text.
  const value = (p: FuzzParam) =>
    fc.constantFrom<unknown>(
      ...(p.schema.enum ?? QUERY_VALUES[p.name] ?? (p.schema.type === 'boolean' ? ['true', 'false'] : ['x'])),
    );
  return fc
    .tuple(...params.map((p) => fc.tuple(fc.constant(p), p.required ? fc.constant(true) : fc.boolean(), value(p))))
    .map((xs) =>
      xs.filter(([, on]) => on).map(([p, , v]): [string, WireValue] => [p.name, { value: v, encoding: 'uri' }]),
    );
}

/** Headers of a valid call: a key that may call the route, acting in organization F. */
function validHeaders(op: FuzzOperation): fc.Arbitrary<[string, unknown][]> {
  const idem = op.params.some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
  const platform: [string, unknown][] = [
    ['authorization', ['Bearer ', { $ref: LIVE_ONLY.has(op.key) ? 'key.platformLive' : 'key.platform' }]],
    ['service-organization-id', { $ref: 'org' }],
  ];
  const org: [string, unknown][] = [
    ['authorization', ['Bearer ', { $ref: LIVE_ONLY.has(op.key) ? 'key.orgLive' : 'key.orgTest' }]],
  ];
  const who: [string, unknown][][] = op.authNone ? [[]] : op.platformOnly ? [platform] : [platform, org];
  return fc
    .constantFrom(...who)
    .map((h) => [
      ...h,
      ...(idem ? [['idempotency-key', { $ref: 'fresh.uuid' }] as [string, unknown]] : []),
      ...(op.body !== undefined ? [['content-type', 'application/json'] as [string, unknown]] : []),
    ]);
}

/** A valid call of an operation, built from its openapi example with real ids of organization F. */
export function validRequest(op: FuzzOperation): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(validPath(op), validQuery(op), validHeaders(op)).map(
    ([path, query, headers]): FuzzRequest => ({
      kind: 'valid',
      operation: op.key,
      method: op.method,
      route: op.route,
      path,
      query,
      headers,
      ...(op.body !== undefined ? { body: { json: op.body } } : {}),
      changes: [],
      ...(NEEDS[op.key] ? { needs: NEEDS[op.key] } : {}),
    }),
  );
}
