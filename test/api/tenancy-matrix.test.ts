import test, { type ExecutionContext } from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  credentials,
  Metadata,
  status as GrpcStatus,
  type Client,
  type ServiceError as GrpcError,
} from '@grpc/grpc-js';
import type { z } from 'zod';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import type { RouteSpec } from '../../src/contract/route.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/error-catalogue.js';
import { decodeServiceError } from '../../src/grpc/error-metadata.js';
import { requestMessageOf } from '../../src/contract/request-message-of.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { GRPC_SERVICES } from '../../src/grpc/service-registry.js';
import { bootstrapPlatform } from '../../src/application/bootstrap-platform.js';
import { encodeSlotId } from '../../src/domain/availability/slot-id.js';
import { client } from '../helpers/http.js';
import { weekdays } from '../helpers/graph-fixtures.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { storeFingerprint } from '../helpers/store-fingerprint.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';
import { REVIEW_STREAM } from '../../src/persistence/review-queue.js';

/**
 * The tenancy matrix (issue 15; CONTRACT part 2: "A resource of another organization answers 403 `FORBIDDEN`, on
 * every endpoint, by path id or by id in a body"). Generated from the route table: every path parameter of every
 * route, and every id field of a query or body the schemas declare, is filled with another organization's real id
 * and sent as organization A through both doors (REST, and the RPC straight over gRPC with the typed message the
 * gateway builds of that input) and both ways of being A (A's organization key, and a platform key with
 * `Service-Organization-Id: A`). Each answer must be the expected refusal, reveal nothing of the other organization,
 * and change nothing. Input no message can carry (a member the contract never takes) is refused at the gateway's edge
 * before any RPC: that refusal is judged in place of the gRPC answer. An id the matrix has no foreign value for fails it.
 */

const clock = createTestClock('2026-03-02T12:00:00Z');
let svc: TestService;
/** Fixture ids by `<owner>.<name>`: A is the caller, B another organization of its platform, C one of another platform. */
const ids: Record<string, string> = {};
const keys = { orgA: '', platformLive: '' };

/** How the caller is organization A. */
type Way = 'org' | 'platform';
const WAYS: Way[] = ['org', 'platform'];

/** What a row expects: a refusal code (or one of several), or (documented exceptions) a success that must still reveal nothing. */
type Expect = ErrorCode | ErrorCode[] | 'ok';

/** One call of the matrix: a route with values; `@X.name` strings are fixture ids. */
interface Row {
  route: RouteSpec;
  label: string;
  params: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  ways: Way[];
  /** Overrides the default expectation (see `expectationOf`). */
  expect?: Expect;
  /** Why `expect` differs from the default. */
  reason?: string;
}

const routeOf = (key: string): RouteSpec => {
  const r = ALL_ROUTES.find((x) => `${x.method} ${x.path}` === key);
  if (!r) throw new Error(`the matrix names ${key}, which the route table no longer has`);
  return r;
};

// ---------------------------------------------------------------------------------------------------------------
// Path parameters: the segment before a parameter says which kind of resource it names.

/** Resource kind of a path parameter, keyed by `<previous segment>/:<param>`. */
const PATH_KINDS: Record<string, string> = {
  'organizations/:id': 'org',
  'api-keys/:id': 'apiKey',
  'providers/:id': 'provider',
  'professionals/:id': 'provider',
  'services/:id': 'service',
  'calendar-connections/:id': 'calendar',
  'provider-imports/:importId': 'import',
  'resolutions/:id': 'resolution',
  'options/:optionId': 'option',
  'bookings/:id': 'booking',
  'ranking-policies/:id': 'policy',
  'waitlist/:id': 'waitlist',
  'manual-review/:providerId': 'reviewProvider',
  'deliveries/:id': 'delivery',
  'webhooks/:deliveryId': 'delivery',
  'events/:id': 'event',
  'actors/:kind': 'actorKind',
  ':kind/:id': 'actor',
};

/** Foreign fixture ids per kind (B's unless said). Organizations and keys of B are visible to A's platform key by contract, so C's stand in there. */
const FOREIGN: Record<string, { value: string; ways: Way[] }[]> = {
  org: [
    { value: '@B.org', ways: ['org'] },
    { value: '@C.org', ways: WAYS },
  ],
  apiKey: [
    { value: '@B.apiKey', ways: ['org'] },
    { value: '@C.apiKey', ways: WAYS },
  ],
  provider: [{ value: '@B.provider', ways: WAYS }],
  service: [{ value: '@B.service', ways: WAYS }],
  calendar: [{ value: '@B.calendar', ways: WAYS }],
  import: [{ value: '@B.import', ways: WAYS }],
  resolution: [{ value: '@B.resolution', ways: WAYS }],
  option: [{ value: '@B.option', ways: WAYS }],
  booking: [
    { value: '@B.bookingV2', ways: WAYS },
    { value: '@B.bookingV1', ways: WAYS },
  ],
  policy: [{ value: '@B.policy', ways: WAYS }],
  waitlist: [{ value: '@B.waitlist', ways: WAYS }],
  reviewProvider: [{ value: '@B.reviewProvider', ways: WAYS }],
  delivery: [{ value: '@B.delivery', ways: WAYS }],
  event: [{ value: '@B.event', ways: WAYS }],
};

/** Actors are addressed by kind and id together. */
const FOREIGN_ACTORS = [
  ['resolution', '@B.resolution'],
  ['hold', '@B.hold'],
  ['booking', '@B.bookingV2'],
  ['booking', '@B.bookingV1'],
  ['waitlist_entry', '@B.waitlist'],
] as const;

/** Path parameters that name no tenant's resource, each with why. */
const PATH_EXCEPTIONS: Record<string, string> = {
  'GET /api/v2/inspector/machines/:machine params.machine':
    'a machine of the global catalogue (resolution, hold, booking, waitlist entry), the same for every key',
  'GET /api/v1/bookings/:id/confirm params.id':
    'the e-mailed link takes no key (auth none): its token is the credential, and a wrong token is 404 (test/api/bookings-v1.test.ts)',
};

/** A valid body for a route with a path id, so the id (not the body) is what is judged. */
const BODIES: Record<string, unknown> = {
  'PATCH /api/v2/organizations/:id': { name: 'Alpha probe' },
  'PATCH /api/v2/providers/:id': { displayName: 'Alpha probe' },
  'PATCH /api/v2/calendar-connections/:id': { title: 'Alpha probe' },
  'PATCH /api/v2/services/:id': { title: 'Alpha probe' },
  'POST /api/v2/resolutions/:id/options/:optionId/hold': { ttlSeconds: 60 },
  'POST /api/v2/resolutions/:id/confirm': {
    optionId: '@B.option',
    customer: { name: 'Alpha Probe', email: 'probe@alpha.example' },
  },
  'POST /api/v1/bookings/:id/reschedule': { date: '2026-03-05', time: '10:00' },
  'POST /api/v1/bookings/:id/cancel': { reason: 'alpha probe' },
  'PATCH /api/v2/ranking-policies/:id': { name: 'Alpha probe' },
  'POST /api/v2/ranking-policies/:id/simulate': {
    candidates: [{ providerId: 'prv_hypothetical', displayName: 'Alpha Candidate', slotStart: '2026-03-03T15:00:00Z' }],
  },
};

/** Rows for every path parameter of the route table, or the parameters nothing covers. */
function pathRows(): { rows: Row[]; uncovered: string[] } {
  const rows: Row[] = [];
  const uncovered: string[] = [];
  for (const route of ALL_ROUTES) {
    const segments = route.path.split('/');
    const names: string[] = [];
    const kinds: Record<string, string> = {};
    for (const [i, seg] of segments.entries()) {
      if (!seg.startsWith(':')) continue;
      const name = seg.slice(1);
      const at = `${route.method} ${route.path} params.${name}`;
      if (PATH_EXCEPTIONS[at]) continue;
      const kind = PATH_KINDS[`${segments[i - 1]}/${seg}`];
      if (!kind) {
        uncovered.push(at);
        continue;
      }
      names.push(name);
      kinds[name] = kind;
    }
    if (names.length === 0) continue;
    const key = `${route.method} ${route.path}`;
    const body = BODIES[key] ?? (route.body ? {} : undefined);
    if (Object.values(kinds).includes('actor')) {
      for (const [kind, id] of FOREIGN_ACTORS)
        rows.push({ route, label: `${kind} ${id}`, params: { kind, id }, body, ways: WAYS });
      continue;
    }
    // Every combination of the foreign values of the parameters (resolution and option are B's together).
    let combos: { params: Record<string, string>; ways: Way[] }[] = [{ params: {}, ways: WAYS }];
    for (const name of names) {
      const values = FOREIGN[kinds[name]!];
      if (!values) {
        uncovered.push(`${key} params.${name} (kind ${kinds[name]} has no foreign fixture)`);
        combos = [];
        break;
      }
      combos = combos.flatMap((c) =>
        values.map((v) => ({
          params: { ...c.params, [name]: v.value },
          ways: c.ways.filter((w) => v.ways.includes(w)),
        })),
      );
    }
    for (const c of combos.filter((x) => x.ways.length > 0))
      rows.push({ route, label: Object.values(c.params).join(' '), params: c.params, body, ways: c.ways });
  }
  return { rows, uncovered };
}

// ---------------------------------------------------------------------------------------------------------------
// Ids in queries and bodies: a small table, checked against the id fields the schemas declare.

const customer = { name: 'Alpha Probe', email: 'probe@alpha.example' };
const range = { from: '2026-03-03', to: '2026-03-04' };
const days = weekdays();
/** A slot id naming `provider` and `service` (slot ids carry both, so the id in them is judged too). */
const slot = (provider: string, service: string) => `@slot:${provider}:${service}`;

/**
 * An option is not a resource of its own: it exists only inside its resolution, which every route names beside it.
 * Under A's own resolution another organization's option id names nothing, exactly like an unknown one (B's option
 * under B's resolution is 403: the path rows).
 */
const OPTION_REASON =
  "an option exists only inside its resolution: A's resolution has no such option, the answer any unknown option id gets";

/** Rows for ids in queries and bodies; `covers` lists the `<location>.<field>` each row proves. */
const FIELD_ROWS: {
  key: string;
  covers: string[];
  label: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  ways?: Way[];
  expect?: Expect;
  reason?: string;
}[] = [
  {
    key: 'GET /api/v2/services',
    covers: ['query.providerId'],
    label: 'providerId B',
    query: { providerId: '@B.provider' },
  },
  {
    key: 'GET /api/v1/event-types',
    covers: ['query.providerId'],
    label: 'providerId B',
    query: { providerId: '@B.provider' },
  },
  {
    key: 'GET /api/v2/calendar-connections',
    covers: ['query.providerId'],
    label: 'providerId B',
    query: { providerId: '@B.provider' },
  },
  {
    key: 'GET /api/v2/bookings',
    covers: ['query.providerId'],
    label: 'providerId B',
    query: { providerId: '@B.provider' },
  },
  {
    key: 'GET /api/v1/slots',
    covers: ['query.providerId', 'query.eventTypeId'],
    label: 'provider B, service B',
    query: { providerId: '@B.provider', eventTypeId: '@B.service', date: '2026-03-03' },
  },
  {
    key: 'GET /api/v1/slots',
    covers: ['query.eventTypeId'],
    label: 'provider A, service B',
    query: { providerId: '@A.provider', eventTypeId: '@B.service', date: '2026-03-03' },
  },
  {
    key: 'GET /api/v1/slots',
    covers: ['query.providerId'],
    label: 'provider B, service A',
    query: { providerId: '@B.provider', eventTypeId: '@A.service', date: '2026-03-03' },
  },
  {
    key: 'GET /api/v2/provider-imports',
    covers: ['query.importId'],
    label: 'importId B',
    query: { importId: '@B.import' },
  },
  {
    key: 'GET /api/v2/audit-events',
    covers: ['query.resource_id'],
    label: 'resource_id B',
    query: { resource_id: '@B.provider' },
    expect: 'ok',
    reason:
      "a filter over A's own audit log, not a read of the resource: it answers A's entries about that id, never B's",
  },
  {
    key: 'POST /api/v2/api-keys',
    covers: ['body.organizationId'],
    label: 'organizationId B',
    body: { type: 'organization_test', organizationId: '@B.org', name: 'Alpha probe' },
    ways: ['org'],
  },
  {
    key: 'POST /api/v2/api-keys',
    covers: ['body.organizationId'],
    label: 'organizationId C',
    body: { type: 'organization_test', organizationId: '@C.org', name: 'Alpha probe' },
  },
  {
    key: 'POST /api/v2/services',
    covers: ['body.providerId'],
    label: 'providerId B',
    body: { providerId: '@B.provider', title: 'Alpha Probe', duration: 30 },
  },
  {
    key: 'POST /api/v2/calendar-connections',
    covers: ['body.providerId'],
    label: 'providerId B',
    body: { providerId: '@B.provider', timezone: 'America/New_York', days },
  },
  {
    key: 'PATCH /api/v2/calendar-connections/:id',
    covers: ['body.providerId'],
    label: 'own schedule, providerId B',
    params: { id: '@A.calendar' },
    body: { providerId: '@B.provider' },
    expect: 'VALIDATION_ERROR',
    reason:
      'providerId is never accepted on PATCH (the route says "400 on providerId"): any value, own or foreign, is refused before it is looked up',
  },
  {
    key: 'PATCH /api/v2/services/:id',
    covers: ['body.providerId'],
    label: 'own service, providerId B',
    params: { id: '@A.service' },
    body: { providerId: '@B.provider' },
    expect: 'VALIDATION_ERROR',
    reason:
      'providerId is never accepted on PATCH (the route says "400 on providerId"): any value, own or foreign, is refused before it is looked up',
  },
  {
    key: 'POST /api/v2/resolutions',
    covers: ['body.serviceId'],
    label: 'serviceId B',
    body: { serviceId: '@B.service', dateRange: range },
  },
  {
    key: 'POST /api/v2/resolutions',
    covers: ['body.policyId'],
    label: 'own service, policyId B',
    body: { serviceId: '@A.service', dateRange: range, policyId: '@B.policy' },
  },
  {
    key: 'POST /api/v1/resolutions',
    covers: ['body.service'],
    label: 'service B',
    body: { service: '@B.service', dateRange: range },
  },
  {
    key: 'POST /api/v2/resolutions/:id/confirm',
    covers: ['body.holdId'],
    label: 'own resolution and option, holdId B',
    params: { id: '@A.resolution' },
    body: { optionId: '@A.option', holdId: '@B.hold', customer },
  },
  {
    key: 'POST /api/v2/resolutions/:id/confirm',
    covers: ['body.optionId'],
    label: 'own resolution, optionId B',
    params: { id: '@A.resolution' },
    body: { optionId: '@B.option', customer },
    expect: 'OPTION_NOT_FOUND',
    reason: OPTION_REASON,
  },
  {
    key: 'POST /api/v2/resolutions/:id/options/:optionId/hold',
    covers: [],
    label: 'own resolution, option B',
    params: { id: '@A.resolution', optionId: '@B.option' },
    body: { ttlSeconds: 60 },
    expect: 'OPTION_NOT_FOUND',
    reason: OPTION_REASON,
  },
  {
    key: 'GET /api/v2/resolutions/:id/options/:optionId/hold',
    covers: [],
    label: 'own resolution, option B',
    params: { id: '@A.resolution', optionId: '@B.option' },
    expect: 'OPTION_NOT_FOUND',
    reason: OPTION_REASON,
  },
  {
    key: 'DELETE /api/v2/resolutions/:id/options/:optionId/hold',
    covers: [],
    label: 'own resolution, option B',
    params: { id: '@A.resolution', optionId: '@B.option' },
    expect: 'OPTION_NOT_FOUND',
    reason: OPTION_REASON,
  },
  {
    key: 'POST /api/v1/bookings',
    covers: ['body.providerId', 'body.serviceId', 'body.slotId'],
    label: "provider B, service B, B's slot",
    body: { providerId: '@B.provider', serviceId: '@B.service', slotId: '@B.slot', attendee: customer },
  },
  {
    key: 'POST /api/v1/bookings',
    covers: ['body.serviceId'],
    label: 'provider A, service B',
    body: {
      providerId: '@A.provider',
      serviceId: '@B.service',
      slotId: slot('A.provider', 'B.service'),
      attendee: customer,
    },
  },
  {
    key: 'POST /api/v1/bookings',
    covers: ['body.providerId'],
    label: 'provider B, service A',
    body: {
      providerId: '@B.provider',
      serviceId: '@A.service',
      slotId: slot('B.provider', 'A.service'),
      attendee: customer,
    },
  },
  {
    key: 'POST /api/v2/continuity',
    covers: ['body.providerId'],
    label: 'providerId B',
    body: { providerId: '@B.provider', clientRef: 'alpha-probe' },
  },
  {
    key: 'POST /api/v2/waitlist',
    covers: ['body.serviceId'],
    label: 'serviceId B',
    body: { serviceId: '@B.service', customer },
  },
  {
    key: 'POST /api/v2/waitlist',
    covers: ['body.resolutionId'],
    label: 'own service, resolutionId B',
    body: { serviceId: '@A.service', customer, resolutionId: '@B.resolution' },
  },
  {
    key: 'POST /api/v2/ranking-policies/:id/simulate',
    covers: ['body.candidates.*.providerId'],
    label: 'own policy, candidate B',
    params: { id: '@A.policy' },
    body: {
      candidates: [{ providerId: '@B.provider', displayName: 'Alpha Candidate', slotStart: '2026-03-03T15:00:00Z' }],
    },
    expect: 'ok',
    reason:
      'simulate ranks hypothetical candidates the caller describes and looks nothing up: the answer holds only what was sent',
  },
];

/** Id fields of queries and bodies that are not references to a resource: `externalId` is the caller's own name for a record, looked up only in its organization. */
const FIELD_EXCEPTIONS = new Set(['externalId']);

/** `<location>.<path>` of every id field a zod schema declares (`.*` for array items). */
function idFields(schema: z.ZodType | undefined, location: string): string[] {
  const out = new Set<string>();
  const walk = (s: unknown, path: string, depth: number) => {
    const def = (s as { _zod?: { def?: Record<string, any> } } | undefined)?._zod?.def;
    if (!def || depth > 12) return;
    switch (def.type) {
      case 'object':
        for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) {
          const p = path ? `${path}.${k}` : k;
          if ((/(^id|Id|Ids|_id)$/.test(k) || k === 'service') && !FIELD_EXCEPTIONS.has(k)) out.add(`${location}.${p}`);
          walk(v, p, depth + 1);
        }
        break;
      case 'array':
        walk(def.element, `${path}.*`, depth + 1);
        break;
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'nonoptional':
      case 'catch':
        walk(def.innerType, path, depth + 1);
        break;
      case 'pipe':
        walk(def.in, path, depth + 1);
        break;
      case 'union':
        for (const o of def.options as unknown[]) walk(o, path, depth + 1);
        break;
      case 'intersection':
        walk(def.left, path, depth + 1);
        walk(def.right, path, depth + 1);
        break;
      case 'record':
        walk(def.valueType, `${path}.*`, depth + 1);
        break;
    }
  };
  walk(schema, '', 0);
  return [...out];
}

/** Rows for the field table, and the id fields of the route table that no row covers. */
function fieldRows(): { rows: Row[]; uncovered: string[] } {
  const rows: Row[] = FIELD_ROWS.map((f) => ({
    route: routeOf(f.key),
    label: f.label,
    params: f.params ?? {},
    query: f.query,
    body: f.body,
    ways: f.ways ?? WAYS,
    expect: f.expect,
    reason: f.reason,
  }));
  const covered = new Set(FIELD_ROWS.flatMap((f) => f.covers.map((c) => `${f.key} ${c}`)));
  const uncovered = ALL_ROUTES.flatMap((r) =>
    [...idFields(r.query, 'query'), ...idFields(r.body, 'body')].map((f) => `${r.method} ${r.path} ${f}`),
  ).filter((f) => !covered.has(f));
  return { rows, uncovered };
}

const PATHS = pathRows();
const FIELDS = fieldRows();
const ROWS = [...PATHS.rows, ...FIELDS.rows];

// ---------------------------------------------------------------------------------------------------------------
// Fixtures: A (the caller, plan launch so replays reach the tenancy check), B with a resource of every kind, C.

const idem = () => ({ 'idempotency-key': randomUUID() });

test.before(async () => {
  svc = await startTestService({ clock, env: { WEBHOOK_ALLOW_INSECURE_URLS: '1', RATE_LIMIT_PER_MINUTE: '100000' } });
  const platform = client(svc.url, svc.platformKey);
  const ok = async <T = any>(what: string, p: Promise<{ status: number; body: T }>): Promise<T> => {
    const r = await p;
    if (r.status >= 300) throw new Error(`fixture ${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  // Live keys come from the platform's live key: a test key may create only test keys.
  keys.platformLive = await livePlatformKey(svc);
  const platformLive = client(svc.url, keys.platformLive);

  const org = async (owner: 'A' | 'B', name: string) => {
    const o = await ok(
      `${owner} organization`,
      platform.post('/api/v2/organizations', {
        externalId: name.toLowerCase().replace(/\s+/g, '-'),
        name,
        settings: { plan: 'launch' },
      }),
    );
    ids[`${owner}.org`] = o.id;
    return client(svc.url, svc.platformKey, { 'service-organization-id': o.id });
  };
  const graph = async (
    owner: 'A' | 'B',
    o: ReturnType<typeof client>,
    externalId: string,
    displayName: string,
    extra: Record<string, unknown>,
    title: string,
  ) => {
    const provider = await ok(
      `${owner} provider`,
      o.post('/api/v2/providers', {
        externalId,
        displayName,
        email: `${externalId}@${owner === 'A' ? 'alpha' : 'bravo'}.example`,
        timezone: 'America/New_York',
        ...extra,
      }),
    );
    const service = await ok(
      `${owner} service`,
      o.post('/api/v2/services', { providerId: provider.id, title, duration: 60 }),
    );
    const calendar = await ok(
      `${owner} schedule`,
      o.post('/api/v2/calendar-connections', {
        providerId: provider.id,
        timezone: 'America/New_York',
        days,
        title: `${displayName} week`,
      }),
    );
    return { provider: provider.id as string, service: service.id as string, calendar: calendar.id as string };
  };

  // A: the caller. Its own resources make the rows that pair an own id with a foreign one.
  const a = await org('A', 'Alpha Clinic');
  keys.orgA = (
    await ok(
      'A key',
      platformLive.post('/api/v2/api-keys', {
        type: 'organization_live',
        organizationId: ids['A.org'],
        name: 'alpha desk',
      }),
    )
  ).key;
  const ag = await graph('A', a, 'alpha-1', 'Dr. Alpha One', { languageCodes: ['en'] }, 'Alpha Intake');
  Object.assign(ids, { 'A.provider': ag.provider, 'A.service': ag.service, 'A.calendar': ag.calendar });
  ids['A.policy'] = (await ok('A policy', a.post('/api/v2/ranking-policies', { name: 'Alpha policy' }))).id;
  const ra = await ok(
    'A resolution',
    a.post('/api/v2/resolutions', { serviceId: ag.service, dateRange: range }, idem()),
  );
  ids['A.resolution'] = ra.resolutionId;
  ids['A.option'] = ra.options[0].optionId;

  // B: every kind of resource, made with the platform test key (test mode: its webhook deliveries are suppressed).
  const b = await org('B', 'Bravo Secret Clinic');
  ids['B.apiKey'] = (
    await ok(
      'B key',
      platform.post('/api/v2/api-keys', {
        type: 'organization_test',
        organizationId: ids['B.org'],
        name: 'bravo desk',
      }),
    )
  ).id;
  // Its webhook is configured with the live key (test keys may only read it); B's test-mode events are still
  // suppressed.
  await ok(
    'B webhook',
    client(svc.url, keys.platformLive, { 'service-organization-id': ids['B.org']! }).put('/api/v2/webhooks', {
      url: 'http://127.0.0.1:9/bravo-hook',
      events: ['*'],
    }),
  );
  const bg = await graph(
    'B',
    b,
    'bravo-1',
    'Dr. Bravo One',
    { languageCodes: ['en'], bio: 'Bravo bio' },
    'Bravo Intake',
  );
  Object.assign(ids, { 'B.provider': bg.provider, 'B.service': bg.service, 'B.calendar': bg.calendar });
  // A provider with no languages: a resolution asking for one puts it in manual review.
  ids['B.reviewProvider'] = (await graph('B', b, 'bravo-2', 'Dr. Bravo Two', {}, 'Bravo Intake')).provider;
  ids['B.policy'] = (await ok('B policy', b.post('/api/v2/ranking-policies', { name: 'Bravo policy' }))).id;
  await ok('B policy activation', b.post(`/api/v2/ranking-policies/${ids['B.policy']}/activate`));
  const r1 = await ok(
    'B resolution',
    b.post(
      '/api/v2/resolutions',
      { serviceId: bg.service, dateRange: range, constraints: { languageCodes: { anyOf: ['en'] } } },
      idem(),
    ),
  );
  ids['B.resolution'] = r1.resolutionId;
  ids['B.option'] = r1.options[0].optionId;
  ids['B.hold'] = (
    await ok(
      'B hold',
      b.post(`/api/v2/resolutions/${r1.resolutionId}/options/${r1.options[0].optionId}/hold`, { ttlSeconds: 600 }),
    )
  ).holdId;
  // Manual review is recorded by a worker, moments after the resolution (CONTRACT part 7).
  await until('B manual review lists the provider', async () =>
    (await ok('B manual review', b.get('/api/v2/manual-review'))).data.some(
      (e: any) => e.providerId === ids['B.reviewProvider'],
    ),
  );
  const r2 = await ok(
    'B second resolution',
    b.post('/api/v2/resolutions', { serviceId: bg.service, dateRange: range }, idem()),
  );
  ids['B.bookingV2'] = (
    await ok(
      'B v2 booking',
      b.post(
        `/api/v2/resolutions/${r2.resolutionId}/confirm`,
        { optionId: r2.options[0].optionId, customer: { name: 'Bravo Customer', email: 'customer@bravo.example' } },
        idem(),
      ),
    )
  ).id;
  const slots = await ok(
    'B slots',
    b.get(`/api/v1/slots?providerId=${bg.provider}&eventTypeId=${bg.service}&date=2026-03-04`),
  );
  const free = slots.slots.filter((s: any) => s.available);
  ids['B.bookingV1'] = (
    await ok(
      'B v1 booking',
      b.post('/api/v1/bookings', {
        providerId: bg.provider,
        serviceId: bg.service,
        slotId: free[0].id,
        attendee: { name: 'Bravo Attendee', email: 'attendee@bravo.example' },
      }),
    )
  ).data.id;
  ids['B.slot'] = free[1].id;
  ids['B.import'] = (
    await ok(
      'B import',
      b.post('/api/v2/provider-imports', {
        dryRun: true,
        providers: [{ externalId: 'bravo-imported', displayName: 'Dr. Bravo Imported' }],
      }),
    )
  ).importId;
  ids['B.waitlist'] = (
    await ok(
      'B waitlist',
      b.post('/api/v2/waitlist', {
        serviceId: bg.service,
        customer: { name: 'Bravo Waiter', email: 'waiter@bravo.example' },
      }),
    )
  ).id;
  await ok('B continuity', b.post('/api/v2/continuity', { providerId: bg.provider, clientRef: 'bravo-client' }));

  // C: the default organization of another platform, and that platform's key.
  const other = await bootstrapPlatform(svc.service.deps.db, {
    bootstrapKey: `service_live_${randomBytes(24).toString('base64url')}`,
    now: clock(),
  });
  const c = await svc.service.deps.db.query(
    'SELECT p.default_organization_id AS org, k.id AS key FROM platforms p JOIN api_keys k ON k.platform_id = p.id WHERE p.id = $1',
    [other.platformId],
  );
  ids['C.org'] = c.rows[0].org;
  ids['C.apiKey'] = c.rows[0].key;

  // Background work the fixtures started (import job, event dispatch, e-mail) must be over before anything is compared.
  await until(
    'the import job completes',
    async () => (await b.get(`/api/v2/provider-imports/${ids['B.import']}`)).body.status === 'completed',
  );
  await until('B has a webhook delivery', async () => {
    const d = (await b.get('/api/v2/webhooks/deliveries')).body.deliveries;
    if (d?.[0]) {
      ids['B.delivery'] = d[0].id;
      ids['B.event'] = d[0].eventId;
    }
    return Boolean(d?.[0]);
  });
  let last = '';
  await until('the stores are quiet', async () => {
    const undispatched = (
      await svc.service.deps.db.query('SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL')
    ).rows[0].n;
    const now = await snapshot();
    const unrecorded = Number(await svc.service.deps.redis.xLen(REVIEW_STREAM.key));
    const quiet = undispatched === 0 && unrecorded === 0 && now === last;
    last = now;
    return quiet;
  });
});
test.after.always(async () => {
  await svc?.stop();
});

/** Polls `done` every 200 ms until it holds, at most 20 s. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`fixture: ${what} did not happen within 20 s`);
}

/** A fingerprint of every table (the audit log aside: refused calls are recorded by design) and of every actor in Redis. */
async function snapshot(): Promise<string> {
  return JSON.stringify(await storeFingerprint(svc.service.deps, { exact: true }));
}

// ---------------------------------------------------------------------------------------------------------------
// The two doors.

/** Replaces `@X.name` (and slot markers) with fixture ids, everywhere in a value. */
function resolve(v: unknown): unknown {
  if (typeof v === 'string') {
    const m = /^@slot:(\w\.\w+):(\w\.\w+)$/.exec(v);
    if (m)
      return encodeSlotId({
        providerId: need(m[1]!),
        serviceId: need(m[2]!),
        start: Date.parse('2026-03-03T15:00:00.000Z'),
      });
    return v.startsWith('@') ? need(v.slice(1)) : v;
  }
  if (Array.isArray(v)) return v.map(resolve);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  return v;
}
const need = (name: string) => {
  const v = ids[name];
  if (v === undefined) throw new Error(`no fixture ${name}`);
  return v;
};

/** The headers that make the caller organization A, the given way. */
function callerHeaders(way: Way, route: RouteSpec): Record<string, string> {
  const h: Record<string, string> =
    way === 'org'
      ? { authorization: `Bearer ${keys.orgA}` }
      : { authorization: `Bearer ${keys.platformLive}`, 'service-organization-id': ids['A.org']! };
  if (route.headers?.some((x) => x.name === 'Idempotency-Key')) h['idempotency-key'] = randomUUID();
  return h;
}

/** What a door answered: an error (code, status, the text a client sees) or a success (its text). */
interface Answer {
  ok: boolean;
  /** Refused at the gateway's edge before any RPC (the input has no typed message): `status` is the HTTP one. */
  edge?: true;
  code?: string;
  status: number;
  text: string;
  envelopeKeys?: string[];
}

async function viaRest(
  route: RouteSpec,
  params: Record<string, string>,
  query: Record<string, string>,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const path =
    route.path.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(params[n]!)) +
    (Object.keys(query).length ? `?${new URLSearchParams(query)}` : '');
  const res = await fetch(`${svc.url}${path}`, {
    method: route.method,
    signal: AbortSignal.timeout(15_000),
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // A stream that opened would never end: one answered at all is already wrong, so read no further.
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { ok: true, status: res.status, text: '(an event stream opened)' };
  }
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: the text is judged as it is */
  }
  const error = parsed?.error;
  return {
    ok: res.ok,
    status: res.status,
    code: error?.code,
    text: `${text} ${res.headers.get('location') ?? ''}`,
    envelopeKeys: error ? Object.keys(error) : undefined,
  };
}

async function viaGrpc(
  route: RouteSpec,
  params: Record<string, string>,
  query: Record<string, string>,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const { Client: Ctor, definition } = GRPC_SERVICES[route.service];
  const method = definition[route.rpc.charAt(0).toLowerCase() + route.rpc.slice(1)];
  if (!method) throw new Error(`no rpc ${route.rpc} in ${route.service}`);
  // The typed message the gateway sends for this input; what no message carries is refused at the edge, unsent.
  let request: Record<string, unknown>;
  try {
    request = requestMessageOf(route, { params, query, body });
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    const envelope = { code: err.code, message: err.message, field: err.field, details: err.details };
    return {
      ok: false,
      edge: true,
      code: err.code,
      status: ERROR_CATALOGUE[err.code].status,
      text: JSON.stringify(envelope),
    };
  }
  const c = new Ctor(svc.grpcTarget, credentials.createInsecure()) as Client;
  const md = new Metadata();
  for (const [k, v] of Object.entries(headers)) md.set(k, v);
  const deadline = Date.now() + 15_000;
  try {
    const outcome = await new Promise<{ err: GrpcError } | { res: unknown }>((done) => {
      if (method.responseStream) {
        const call = c.makeServerStreamRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          md,
          { deadline },
        );
        call.on('data', (res: unknown) => {
          done({ res });
          call.cancel();
        });
        call.on('error', (err: GrpcError) => done({ err }));
        call.on('end', () => done({ res: '(stream ended)' }));
      } else {
        c.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          md,
          { deadline },
          (err, res) => done(err ? { err: err as GrpcError } : { res }),
        );
      }
    });
    if ('res' in outcome) return { ok: true, status: GrpcStatus.OK, text: JSON.stringify(outcome.res) };
    const decoded = decodeServiceError(outcome.err);
    const trailers = JSON.stringify(outcome.err.metadata?.getMap() ?? {}, (_k, v) =>
      Buffer.isBuffer(v) ? v.toString('utf8') : v,
    );
    return { ok: false, status: outcome.err.code, code: decoded.code, text: `${outcome.err.details} ${trailers}` };
  } finally {
    c.close();
  }
}

/** Strings of B and C a refusal must never show: their organization ids, names and every fixture id not sent. */
function secrets(sent: string): string[] {
  const foreign = Object.entries(ids)
    .filter(([k]) => k.startsWith('B.') || k.startsWith('C.'))
    .map(([, v]) => v)
    .filter((v) => !sent.includes(v));
  return [...foreign, 'Bravo', 'bravo'];
}

const ENVELOPE_V2 = ['code', 'message', 'status', 'requestId', 'field', 'recoverable', 'suggestedAction', 'details'];
const ENVELOPE_V1 = ['code', 'message', 'status'];

/** Checks one answer against the row's expectation. */
function judge(
  t: ExecutionContext,
  door: 'REST' | 'gRPC',
  answer: Answer,
  expect: Expect,
  route: RouteSpec,
  sent: string,
  label: string,
) {
  const seen = `${label} via ${door}${answer.edge ? ' (refused at the edge, unsent)' : ''}: ${answer.status} ${answer.code ?? ''} ${answer.text.slice(0, 300)}`;
  if (expect === 'ok') t.true(answer.ok, seen);
  else {
    t.false(answer.ok, seen);
    const codes: string[] = Array.isArray(expect) ? expect : [expect];
    t.true(codes.includes(answer.code ?? ''), `${seen}: expected ${codes.join(' or ')}`);
    const httpStatus = ERROR_CATALOGUE[(answer.code ?? codes[0]) as ErrorCode]?.status ?? 0;
    if (door === 'REST' || answer.edge) t.is(answer.status, httpStatus, seen);
    else t.is(answer.status, GRPC_FOR_HTTP[httpStatus] ?? -1, seen);
    if (answer.envelopeKeys) {
      const allowed = route.path.startsWith('/api/v1/') ? ENVELOPE_V1 : ENVELOPE_V2;
      t.deepEqual(
        answer.envelopeKeys.filter((k) => !allowed.includes(k)),
        [],
        `${seen}: only the error envelope`,
      );
    } else if (door === 'REST') t.fail(`${seen}: no error envelope`);
  }
  const leaked = secrets(sent).filter((s) => answer.text.includes(s));
  t.deepEqual(leaked, [], `${seen}: reveals nothing of the other organization`);
}

/** The gRPC status each HTTP status of the catalogue travels as (src/grpc/error-metadata.ts). */
const GRPC_FOR_HTTP: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
};

/**
 * CONTRACT part 2: another organization's resource is 403 FORBIDDEN. A platform-only route called with an
 * organization key may refuse the key first (403 PLATFORM_KEY_REQUIRED, as the key API does) or the foreign resource
 * first (403 FORBIDDEN, as PATCH /api/v2/organizations/:id does): both are refusals that reveal nothing.
 */
const expectationOf = (row: Row, way: Way): Expect =>
  row.expect ?? (row.route.platformKeyOnly && way === 'org' ? ['PLATFORM_KEY_REQUIRED', 'FORBIDDEN'] : 'FORBIDDEN');

/** gRPC-door calls of the matrix sent over gRPC, and those refused at the gateway's edge unsent. */
const doorCalls = { grpc: 0, edge: 0 };

for (const row of ROWS) {
  const name = `${row.route.method} ${row.route.path} [${row.label}]${row.expect ? ` -> ${row.expect}` : ''}`;
  test.serial(`tenancy: ${name}`, async (t) => {
    if (row.reason) t.log(`expects ${row.expect}: ${row.reason}`);
    // Every call is compared with the state before the row: a refused call may change nothing at all.
    const before = await snapshot();
    for (const way of row.ways) {
      const params = resolve(row.params) as Record<string, string>;
      const query = resolve(row.query ?? {}) as Record<string, string>;
      const body = resolve(row.body);
      const sent = JSON.stringify({ params, query, body });
      const expect = expectationOf(row, way);
      for (const door of ['REST', 'gRPC'] as const) {
        const headers = callerHeaders(way, row.route);
        const answer =
          door === 'REST'
            ? await viaRest(row.route, params, query, body, headers)
            : await viaGrpc(row.route, params, query, body, headers);
        if (door === 'gRPC') doorCalls[answer.edge ? 'edge' : 'grpc'] += 1;
        judge(t, door, answer, expect, row.route, sent, `as A (${way} key)`);
        t.is(await snapshot(), before, `as A (${way} key) via ${door}: changed nothing`);
      }
    }
  });
}

// Runs after the matrix (serial tests run in order): it writes.
test.serial("controls: A's own ids answer 200 both ways, and the fingerprint sees a write", async (t) => {
  for (const way of WAYS) {
    for (const [path, id] of [
      ['/api/v2/providers/:id', 'A.provider'],
      ['/api/v2/services/:id', 'A.service'],
      ['/api/v2/calendar-connections/:id', 'A.calendar'],
      ['/api/v2/ranking-policies/:id', 'A.policy'],
      ['/api/v2/resolutions/:id', 'A.resolution'],
    ] as const) {
      const route = routeOf(`GET ${path}`);
      const answer = await viaRest(route, { id: need(id) }, {}, undefined, callerHeaders(way, route));
      t.is(answer.status, 200, `${path} as A (${way} key): ${answer.text.slice(0, 200)}`);
    }
  }
  const before = await snapshot();
  const patch = routeOf('PATCH /api/v2/providers/:id');
  t.true(
    (
      await viaRest(
        patch,
        { id: need('A.provider') },
        {},
        { displayName: 'Dr. Alpha Renamed' },
        callerHeaders('org', patch),
      )
    ).ok,
  );
  t.not(await snapshot(), before);
});

test('the matrix covers every id the route table takes', (t) => {
  t.deepEqual(
    PATHS.uncovered,
    [],
    'path parameters with no foreign id in the matrix (add a kind to PATH_KINDS/FOREIGN, or an exception with its reason)',
  );
  t.deepEqual(
    FIELDS.uncovered,
    [],
    'query and body id fields with no row in FIELD_ROWS (add one, or an exception with its reason)',
  );
  const routes = new Set(ROWS.map((r) => `${r.route.method} ${r.route.path}`));
  const calls = ROWS.reduce((n, r) => n + r.ways.length * 2, 0);
  t.log(
    `${ROWS.length} rows over ${routes.size} of ${ALL_ROUTES.length} routes, ${calls} calls (rows × ways × 2 doors)`,
  );
  t.true(routes.size >= 40, String(routes.size));
  // Serial tests ran first: nearly every gRPC-door call went over gRPC.
  t.log(`gRPC door: ${doorCalls.grpc} calls over gRPC, ${doorCalls.edge} refused at the gateway's edge`);
  t.true(doorCalls.grpc >= 150, `${doorCalls.grpc} calls over gRPC`);
  t.true(doorCalls.edge <= 8, `${doorCalls.edge} calls refused at the edge`);
});
