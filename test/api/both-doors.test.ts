import test from 'ava';
import {
  credentials,
  status as GrpcStatus,
  type Client,
  type Metadata,
  type ServiceDefinition,
  type ServiceError as GrpcError,
} from '@grpc/grpc-js';
import { AnalyticsServiceClient } from '../../src/gen/scheduling/v1/analytics_service.js';
import { ApiKeyServiceClient } from '../../src/gen/scheduling/v1/api_key_service.js';
import { AuditServiceClient } from '../../src/gen/scheduling/v1/audit_service.js';
import { BookingServiceClient } from '../../src/gen/scheduling/v1/booking_service.js';
import { CalendarServiceClient } from '../../src/gen/scheduling/v1/calendar_service.js';
import { CareServiceClient } from '../../src/gen/scheduling/v1/care_service.js';
import { CatalogServiceClient } from '../../src/gen/scheduling/v1/catalog_service.js';
import { ImportServiceClient } from '../../src/gen/scheduling/v1/import_service.js';
import { OrganizationServiceClient } from '../../src/gen/scheduling/v1/organization_service.js';
import { ProviderServiceClient } from '../../src/gen/scheduling/v1/provider_service.js';
import { RankingPolicyServiceClient } from '../../src/gen/scheduling/v1/ranking_policy_service.js';
import { ResolutionServiceClient } from '../../src/gen/scheduling/v1/resolution_service.js';
import { WebhookServiceClient } from '../../src/gen/scheduling/v1/webhook_service.js';
import { EventServiceClient } from '../../src/gen/scheduling/v1/event_service.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/error-catalogue.js';
import { decodeServiceError } from '../../src/grpc/error-metadata.js';
import { messageOfRestInput, type RestInput } from '../../src/contract/typed-message.js';
import type { RouteSpec } from '../../src/contract/route.js';
import { requestMessageOf } from '../../src/contract/request-message-of.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { restInputOfMessage } from '../helpers/typed-messages.js';
import { bearer } from '../helpers/typed-calls.js';
import { isDeepStrictEqual } from 'node:util';
import { request } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { HTTP_TO_GRPC } from '../../src/grpc/error-metadata.js';

/**
 * One table of bad inputs, each sent through both doors: REST through the gateway, and the same RPC straight over
 * gRPC with the typed request message the gateway builds of that input (request-message-of.ts). Both must refuse with
 * the same code, `field` and details, REST with the catalogue's status and gRPC with the status that status maps to,
 * and neither may change anything. Input no message can carry (a string where a number goes, a member the contract
 * never takes) has no gRPC form: the gateway refuses it at its edge, and that refusal must be the REST answer. Where
 * the typed fields carry the bad input exactly (a value of the right type that the contract refuses), it is sent a
 * third way, the message made field for field from the input, and must be refused the same way again.
 */

/** Rows sent over gRPC as the message the gateway builds. */
const grpcRows: string[] = [];
/** Rows no message can carry, refused at the gateway's edge. */
const edgeRows: string[] = [];
/** Rows also sent in the typed form. */
const typedRows: string[] = [];

let svc: TestService;
const ids: Record<string, string> = {};

test.before(async () => {
  svc = await startTestService();
  const p = (method: string, path: string, body?: unknown) =>
    request(svc.url, method, path, { key: svc.platformKey, body });
  const org = (await p('POST', '/api/v2/organizations', { externalId: 'doors', name: 'Doors' })).body;
  ids.org = org.id;
  const o = async (method: string, path: string, body?: unknown) => {
    const r = await request(svc.url, method, path, {
      key: svc.platformKey,
      body,
      headers: { 'service-organization-id': org.id },
    });
    if (r.status >= 300) throw new Error(`fixture ${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r;
  };
  ids.provider = (
    await o('POST', '/api/v2/providers', {
      externalId: 'doors-1',
      displayName: 'Dr. Doors',
      timezone: 'America/New_York',
    })
  ).body.id;
  ids.service = (
    await o('POST', '/api/v2/services', { providerId: ids.provider, title: 'Intake', duration: 50 })
  ).body.id;
  const day = { enabled: true, slots: [{ start: '09:00', end: '17:00' }] };
  ids.calendar = (
    await o('POST', '/api/v2/calendar-connections', {
      providerId: ids.provider,
      timezone: 'America/New_York',
      days: { monday: day, tuesday: day },
    })
  ).body.id;
  ids.policy = (await o('POST', '/api/v2/ranking-policies', { name: 'Doors policy' })).body.id;
  for (const [k, v] of Object.entries(ids)) if (typeof v !== 'string') throw new Error(`fixture ${k} was not created`);
});
test.after.always(async () => {
  await svc?.stop();
});

/** A row of the table: the REST request, the key that sends it, and the refusal both doors must give. */
interface BadInput {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A route template of the contract; `:name` segments come from `params`. */
  path: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** `platform`: the platform key on its own; otherwise the platform key acting in the fixture organization. */
  as?: 'platform';
  /** Send an Idempotency-Key (routes that require one check it before the body). */
  idempotent?: true;
  code: ErrorCode;
  field?: string;
}

const long = (n: number) => 'x'.repeat(n);
const range = { from: '2026-05-04', to: '2026-05-11' };
// Resolved lazily: fixture ids exist only after test.before.
const id = (name: string) => `@${name}`;

const TABLE: BadInput[] = [
  // Path ids that match nothing.
  { method: 'GET', path: '/api/v2/providers/:id', params: { id: 'prv_nope' }, code: 'PROVIDER_NOT_FOUND' },
  { method: 'GET', path: '/api/v2/providers/:id', params: { id: long(201) }, code: 'VALIDATION_ERROR', field: 'id' },
  { method: 'GET', path: '/api/v2/services/:id', params: { id: 'svc_nope' }, code: 'SERVICE_NOT_FOUND' },
  {
    method: 'PATCH',
    path: '/api/v2/services/:id',
    params: { id: 'svc_nope' },
    body: { title: 'Renamed' },
    code: 'SERVICE_NOT_FOUND',
  },
  { method: 'DELETE', path: '/api/v2/services/:id', params: { id: 'svc_nope' }, code: 'SERVICE_NOT_FOUND' },
  {
    method: 'PATCH',
    path: '/api/v2/services/:id',
    params: { id: id('service') },
    body: { duration: 2 },
    code: 'VALIDATION_ERROR',
    field: 'duration',
  },
  {
    method: 'PATCH',
    path: '/api/v2/services/:id',
    params: { id: id('service') },
    body: { price: 1500 },
    code: 'VALIDATION_ERROR',
    field: 'currency',
  },
  {
    method: 'PATCH',
    path: '/api/v2/services/:id',
    params: { id: id('service') },
    body: { providerId: id('provider') },
    code: 'VALIDATION_ERROR',
    field: 'providerId',
  },
  {
    method: 'GET',
    path: '/api/v2/calendar-connections/:id',
    params: { id: 'cal_nope' },
    code: 'CALENDAR_CONNECTION_NOT_FOUND',
  },
  { method: 'GET', path: '/api/v2/resolutions/:id', params: { id: 'res_nope' }, code: 'RESOLUTION_NOT_FOUND' },
  {
    method: 'POST',
    path: '/api/v2/resolutions/:id/options/:optionId/hold',
    params: { id: 'res_nope', optionId: 'opt_nope' },
    body: {},
    code: 'RESOLUTION_NOT_FOUND',
  },
  { method: 'GET', path: '/api/v2/bookings/:id', params: { id: 'bkg_nope' }, code: 'BOOKING_NOT_FOUND' },
  { method: 'GET', path: '/api/v1/bookings/:id', params: { id: 'bkg_nope' }, code: 'BOOKING_NOT_FOUND' },
  { method: 'GET', path: '/api/v2/ranking-policies/:id', params: { id: 'pol_nope' }, code: 'POLICY_NOT_FOUND' },
  { method: 'GET', path: '/api/v2/webhooks/deliveries/:id', params: { id: 'dlv_nope' }, code: 'DELIVERY_NOT_FOUND' },
  { method: 'GET', path: '/api/v2/events/:id', params: { id: 'evt_nope' }, code: 'EVENT_NOT_FOUND' },
  { method: 'GET', path: '/api/v2/events', query: { type: 'no.such_event' }, code: 'VALIDATION_ERROR', field: 'type' },
  { method: 'GET', path: '/api/v2/events', query: { since: 'yesterday' }, code: 'VALIDATION_ERROR', field: 'since' },
  { method: 'GET', path: '/api/v2/events', query: { mode: 'sandbox' }, code: 'VALIDATION_ERROR', field: 'mode' },
  { method: 'DELETE', path: '/api/v2/waitlist/:id', params: { id: 'wl_nope' }, code: 'WAITLIST_ENTRY_NOT_FOUND' },
  {
    method: 'GET',
    path: '/api/v2/organizations/:id',
    params: { id: 'org_nope' },
    as: 'platform',
    code: 'ORGANIZATION_NOT_FOUND',
  },
  {
    method: 'DELETE',
    path: '/api/v2/api-keys/:id',
    params: { id: 'key_nope' },
    as: 'platform',
    code: 'API_KEY_NOT_FOUND',
  },

  // Query values.
  { method: 'GET', path: '/api/v2/providers', query: { limit: '0' }, code: 'VALIDATION_ERROR', field: 'limit' },
  { method: 'GET', path: '/api/v2/providers', query: { limit: 'abc' }, code: 'VALIDATION_ERROR', field: 'limit' },
  { method: 'GET', path: '/api/v2/providers', query: { status: 'retired' }, code: 'VALIDATION_ERROR', field: 'status' },
  {
    method: 'GET',
    path: '/api/v2/providers',
    query: { cursor: '!!!not-a-cursor' },
    code: 'VALIDATION_ERROR',
    field: 'cursor',
  },
  { method: 'GET', path: '/api/v2/services', query: { limit: '501' }, code: 'VALIDATION_ERROR', field: 'limit' },
  { method: 'GET', path: '/api/v2/bookings', query: { status: 'lost' }, code: 'VALIDATION_ERROR', field: 'status' },
  { method: 'GET', path: '/api/v1/bookings', query: { page: '0' }, code: 'VALIDATION_ERROR', field: 'page' },
  {
    method: 'GET',
    path: '/api/v1/slots',
    query: { providerId: id('provider'), eventTypeId: id('service'), date: '2026-02-30' },
    code: 'VALIDATION_ERROR',
    field: 'date',
  },
  {
    method: 'GET',
    path: '/api/v2/resolutions/:id/candidates',
    params: { id: 'res_nope' },
    query: { status: 'maybe' },
    code: 'VALIDATION_ERROR',
    field: 'status',
  },
  {
    method: 'GET',
    path: '/api/v2/webhooks/deliveries',
    query: { event: 'no.such_event' },
    code: 'VALIDATION_ERROR',
    field: 'event',
  },
  { method: 'GET', path: '/api/v2/ranking-policies', query: { limit: '-1' }, code: 'VALIDATION_ERROR', field: 'limit' },
  { method: 'GET', path: '/api/v2/waitlist', query: { status: 'sleeping' }, code: 'VALIDATION_ERROR', field: 'status' },
  { method: 'GET', path: '/api/v2/continuity', query: {}, code: 'VALIDATION_ERROR', field: 'clientRef' },
  {
    method: 'GET',
    path: '/api/v2/organizations',
    query: { cursor: '%%%' },
    as: 'platform',
    code: 'VALIDATION_ERROR',
    field: 'cursor',
  },
  {
    method: 'GET',
    path: '/api/v2/api-keys',
    query: { limit: '1.5' },
    as: 'platform',
    code: 'VALIDATION_ERROR',
    field: 'limit',
  },

  // Bodies.
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: { displayName: 'No external id' },
    code: 'VALIDATION_ERROR',
    field: 'externalId',
  },
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: { externalId: 'bad-type', displayName: 'Dr. X', searchable: 'yes' },
    code: 'VALIDATION_ERROR',
    field: 'searchable',
  },
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: { externalId: 'bad-status', displayName: 'Dr. X', status: 'retired' },
    code: 'VALIDATION_ERROR',
    field: 'status',
  },
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: { externalId: long(201), displayName: 'Dr. X' },
    code: 'VALIDATION_ERROR',
    field: 'externalId',
  },
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: { externalId: 'bad-tz', displayName: 'Dr. X', timezone: 'Mars/Olympus_Mons' },
    code: 'VALIDATION_ERROR',
    field: 'timezone',
  },
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: {
      externalId: 'bad-nest',
      displayName: 'Dr. X',
      licenseRecords: [{ licenseTypeCode: 'psy', regionCode: 'US-NY', status: 'active', expiresAt: '2030-13-01' }],
    },
    code: 'VALIDATION_ERROR',
    field: 'licenseRecords.0.expiresAt',
  },
  {
    method: 'PATCH',
    path: '/api/v2/providers/:id',
    params: { id: id('provider') },
    body: { panelCapacity: -1 },
    code: 'VALIDATION_ERROR',
    field: 'panelCapacity',
  },
  {
    method: 'PATCH',
    path: '/api/v2/providers/:id',
    params: { id: id('provider') },
    body: { displayName: { first: 'Nested' } },
    code: 'VALIDATION_ERROR',
    field: 'displayName',
  },
  {
    method: 'POST',
    path: '/api/v2/services',
    body: { providerId: id('provider'), title: 'Short', duration: 2 },
    code: 'VALIDATION_ERROR',
    field: 'duration',
  },
  {
    method: 'POST',
    path: '/api/v2/services',
    body: { providerId: id('provider'), title: 'Priced', duration: 50, price: -5, currency: 'USD' },
    code: 'VALIDATION_ERROR',
    field: 'price',
  },
  {
    method: 'POST',
    path: '/api/v2/calendar-connections',
    body: { providerId: id('provider'), timezone: 'Not/AZone', days: {} },
    code: 'VALIDATION_ERROR',
    field: 'timezone',
  },
  {
    method: 'POST',
    path: '/api/v2/calendar-connections',
    body: {
      providerId: id('provider'),
      timezone: 'UTC',
      days: { monday: { enabled: true, slots: [{ start: '25:00', end: '26:00' }] } },
    },
    code: 'VALIDATION_ERROR',
    field: 'days.monday.slots.0.start',
  },
  {
    method: 'PATCH',
    path: '/api/v2/calendar-connections/:id',
    params: { id: id('calendar') },
    body: { overrides: [{ date: 'tomorrow', slots: [] }] },
    code: 'VALIDATION_ERROR',
    field: 'overrides.0.date',
  },
  {
    method: 'POST',
    idempotent: true,
    path: '/api/v2/resolutions',
    body: { dateRange: range },
    code: 'VALIDATION_ERROR',
    field: 'serviceId',
  },
  {
    method: 'POST',
    idempotent: true,
    path: '/api/v2/resolutions',
    body: { serviceId: id('service'), dateRange: range, preferences: { dayParts: ['midnight'] } },
    code: 'VALIDATION_ERROR',
    field: 'preferences.dayParts.0',
  },
  {
    method: 'POST',
    idempotent: true,
    path: '/api/v2/resolutions',
    body: { serviceId: id('service'), dateRange: range, maxOptionsPerProvider: 11 },
    code: 'VALIDATION_ERROR',
    field: 'maxOptionsPerProvider',
  },
  {
    method: 'POST',
    idempotent: true,
    path: '/api/v2/resolutions',
    body: { serviceId: id('service'), dateRange: { from: '2026-05-11', to: '2026-05-04' } },
    code: 'INVALID_DATE_RANGE',
    field: 'dateRange.to',
  },
  {
    method: 'POST',
    path: '/api/v2/resolutions/:id/options/:optionId/hold',
    params: { id: 'res_nope', optionId: 'opt_nope' },
    body: { ttlSeconds: 0 },
    code: 'VALIDATION_ERROR',
    field: 'ttlSeconds',
  },
  {
    method: 'POST',
    idempotent: true,
    path: '/api/v2/resolutions/:id/confirm',
    params: { id: 'res_nope' },
    body: { customer: { name: 'A', email: 'a@example.com' } },
    code: 'VALIDATION_ERROR',
    field: 'optionId',
  },
  {
    method: 'POST',
    idempotent: true,
    path: '/api/v2/resolutions/:id/confirm',
    params: { id: 'res_nope' },
    body: { optionId: 'opt_1', customer: { name: 'A', email: 'not-an-email' } },
    code: 'VALIDATION_ERROR',
    field: 'customer.email',
  },
  {
    method: 'POST',
    path: '/api/v1/bookings',
    body: {
      providerId: id('provider'),
      serviceId: id('service'),
      slotId: 'garbage',
      attendee: { name: 'A', email: 'a@example.com' },
    },
    code: 'VALIDATION_ERROR',
    field: 'slotId',
  },
  {
    method: 'POST',
    path: '/api/v1/bookings/:id/cancel',
    params: { id: 'bkg_nope' },
    body: { reason: 42 },
    code: 'VALIDATION_ERROR',
    field: 'reason',
  },
  {
    method: 'PUT',
    path: '/api/v2/webhooks',
    body: { url: 'https://hooks.example.com/x', events: ['booking.teleported'] },
    code: 'VALIDATION_ERROR',
    field: 'events.0',
  },
  {
    method: 'PUT',
    path: '/api/v2/webhooks',
    body: { url: 'https://hooks.example.com/x', events: [] },
    code: 'VALIDATION_ERROR',
    field: 'events',
  },
  {
    method: 'POST',
    path: '/api/v2/organizations',
    as: 'platform',
    body: { externalId: 'doors-bad', name: 'Bad', settings: { plan: 'galactic' } },
    code: 'VALIDATION_ERROR',
    field: 'settings.plan',
  },
  {
    method: 'PATCH',
    path: '/api/v2/organizations/:id',
    params: { id: id('org') },
    as: 'platform',
    body: { settings: { timezone: 'Atlantis/Capital' } },
    code: 'VALIDATION_ERROR',
    field: 'settings.timezone',
  },
  {
    method: 'POST',
    path: '/api/v2/api-keys',
    as: 'platform',
    body: { type: 'superuser', organizationId: id('org'), name: 'x' },
    code: 'VALIDATION_ERROR',
    field: 'type',
  },
  {
    method: 'POST',
    path: '/api/v2/api-keys',
    as: 'platform',
    body: { type: 'organization_test', organizationId: id('org'), name: 'x', expiresAt: 'next week' },
    code: 'VALIDATION_ERROR',
    field: 'expiresAt',
  },
  {
    method: 'POST',
    path: '/api/v2/ranking-policies',
    body: { name: long(201) },
    code: 'VALIDATION_ERROR',
    field: 'name',
  },
  {
    method: 'PATCH',
    path: '/api/v2/ranking-policies/:id',
    params: { id: id('policy') },
    body: { tieBreakers: ['coin_flip'] },
    code: 'VALIDATION_ERROR',
    field: 'tieBreakers.0',
  },
  {
    method: 'POST',
    path: '/api/v2/waitlist',
    body: { serviceId: id('service'), customer: { name: 'A' } },
    code: 'VALIDATION_ERROR',
    field: 'customer.email',
  },
  {
    method: 'POST',
    path: '/api/v2/continuity',
    body: { providerId: id('provider'), clientRef: 'c-1', lastSeenAt: '2026-99-01T00:00:00Z' },
    code: 'VALIDATION_ERROR',
    field: 'lastSeenAt',
  },
  {
    method: 'POST',
    path: '/api/v2/provider-imports',
    body: { providers: 'all of them' },
    code: 'VALIDATION_ERROR',
    field: 'providers',
  },
];

const CLIENTS = {
  AnalyticsService: AnalyticsServiceClient,
  ApiKeyService: ApiKeyServiceClient,
  AuditService: AuditServiceClient,
  BookingService: BookingServiceClient,
  CalendarService: CalendarServiceClient,
  CareService: CareServiceClient,
  CatalogService: CatalogServiceClient,
  ImportService: ImportServiceClient,
  OrganizationService: OrganizationServiceClient,
  ProviderService: ProviderServiceClient,
  RankingPolicyService: RankingPolicyServiceClient,
  ResolutionService: ResolutionServiceClient,
  WebhookService: WebhookServiceClient,
  EventService: EventServiceClient,
} as const;

/** Replaces `@name` with the fixture id of that name. */
const resolveIds = (v: unknown): unknown => {
  if (typeof v === 'string') return v.startsWith('@') ? ids[v.slice(1)] : v;
  if (Array.isArray(v)) return v.map(resolveIds);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveIds(x)]));
  return v;
};

/** A fingerprint of every table a refused request could have written (audit and rate-limit bookkeeping aside). */
async function snapshot(): Promise<string> {
  const tables = [
    'organizations',
    'api_keys',
    'providers',
    'services',
    'calendar_connections',
    'resolutions',
    'bookings',
    'slot_claims',
    'ranking_policies',
    'ranking_policy_versions',
    'waitlist_entries',
    'continuity_records',
    'webhooks',
    'webhook_deliveries',
    'provider_imports',
    'events',
    'email_outbox',
  ];
  // Events and deliveries are marked sent by workers in the background: their ids are what a request could add.
  const byId = new Set(['events', 'webhook_deliveries']);
  const parts: string[] = [];
  for (const t of tables) {
    const row = byId.has(t) ? 'x.id::text' : 'x::text';
    const r = await svc.service.deps.db.query(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(${row}, '|' ORDER BY ${row}), '')) AS h FROM ${t} x`,
    );
    parts.push(`${t}:${r.rows[0].n}:${r.rows[0].h}`);
  }
  return parts.join(' ');
}

/** Calls one unary RPC on a generated client, resolving to the gRPC error (or failing when it succeeds). */
function callForError(c: Client, rpc: string, req: unknown, md: Metadata): Promise<GrpcError> {
  const fn = (c as unknown as Record<string, Function>)[rpc.charAt(0).toLowerCase() + rpc.slice(1)];
  if (!fn) return Promise.reject(new Error(`no rpc ${rpc} on the generated client`));
  return new Promise((resolve, reject) => {
    fn.call(c, req, md, { deadline: Date.now() + 10_000 }, (err: GrpcError | null, res: unknown) =>
      err ? resolve(err) : reject(new Error(`gRPC accepted: ${JSON.stringify(res)}`)),
    );
  });
}

/**
 * The gRPC door as the gateway uses it: the RPC called with the typed message the gateway builds of a REST input
 * (request-message-of.ts), answering its refusal; input no message can carry is refused there, at the gateway's edge,
 * before any RPC (no `grpcErr` then).
 */
async function gatewayDoor(
  Ctor: (typeof CLIENTS)[keyof typeof CLIENTS],
  route: RouteSpec,
  input: RestInput,
  md: Metadata,
): Promise<{ decoded: ServiceError; grpcErr?: GrpcError }> {
  let message: Record<string, unknown>;
  try {
    message = requestMessageOf(route, input);
  } catch (err) {
    if (err instanceof ServiceError) return { decoded: err };
    throw err;
  }
  const grpc = new Ctor(svc.grpcTarget, credentials.createInsecure()) as unknown as Client;
  try {
    const grpcErr = await callForError(grpc, route.rpc, message, md);
    return { decoded: decodeServiceError(grpcErr), grpcErr };
  } finally {
    grpc.close();
  }
}

const label = (r: BadInput) =>
  `${r.method} ${r.path}${r.query ? `?${new URLSearchParams(r.query)}` : ''} -> ${r.code}${r.field ? ` (${r.field})` : ''}`;

for (const [i, row] of TABLE.entries()) {
  test.serial(`both doors refuse alike #${i + 1}: ${label(row)}`, async (t) => {
    const route = ALL_ROUTES.find((r) => r.method === row.method && r.path === row.path);
    if (!route) return t.fail(`no route ${row.method} ${row.path}`);
    const params = resolveIds(row.params ?? {}) as Record<string, string>;
    const query = resolveIds(row.query ?? {}) as Record<string, string>;
    const body = resolveIds(row.body);
    const headers: Record<string, string> = row.as === 'platform' ? {} : { 'service-organization-id': ids.org! };
    if (row.idempotent) headers['idempotency-key'] = `both-doors-${i}`;
    const path =
      row.path.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(params[n]!)) +
      (row.query ? `?${new URLSearchParams(query)}` : '');
    const before = await snapshot();

    // REST door.
    const rest = await request(svc.url, row.method, path, { key: svc.platformKey, body, headers });
    const restError = rest.body?.error ?? {};
    // gRPC door: the RPC the route maps to, with the typed message the gateway builds of this input.
    const Ctor = CLIENTS[route.service as keyof typeof CLIENTS];
    if (!Ctor) return t.fail(`no client for ${route.service}`);
    const md = bearer(svc.platformKey, headers);
    const { decoded, grpcErr } = await gatewayDoor(Ctor, route, { params, query, body }, md);
    (grpcErr ? grpcRows : edgeRows).push(label(row));
    const grpcStatus = HTTP_TO_GRPC[ERROR_CATALOGUE[row.code].status];
    t.not(grpcStatus, undefined, `no gRPC status for HTTP ${ERROR_CATALOGUE[row.code].status}`);
    // Third door: the typed fields, when the message can carry exactly this input.
    let typed: Record<string, unknown> | undefined;
    try {
      // Carried exactly: encoded and decoded by the method's serializers, it reads back the same (a query-string
      // integer such as `limit=1.5` has no int64 form and is not sent typed).
      const message = messageOfRestInput(route, { params, query, body });
      const method = Object.values((Ctor as unknown as { service: ServiceDefinition }).service).find((d) =>
        d.path.endsWith(`/${route.rpc}`),
      )!;
      const decoded = method.requestDeserialize(method.requestSerialize(message)) as Record<string, unknown>;
      if (isDeepStrictEqual(restInputOfMessage(route, decoded), { params, query, body: route.body ? body : undefined }))
        typed = message;
    } catch {
      typed = undefined;
    }
    if (typed) {
      const typedClient = new Ctor(svc.grpcTarget, credentials.createInsecure()) as unknown as Client;
      try {
        const typedErr = await callForError(typedClient, route.rpc, typed, md);
        const typedDecoded = decodeServiceError(typedErr);
        t.is(typedDecoded.code, row.code, `typed: ${typedDecoded.code} field=${typedDecoded.field}`);
        t.is(typedDecoded.field, row.field, `typed: ${typedDecoded.code} field=${typedDecoded.field}`);
        t.is(typedErr.code, grpcStatus!, 'typed: the gRPC status of the code');
        typedRows.push(label(row));
      } finally {
        typedClient.close();
      }
    }

    const door = grpcErr ? `gRPC ${GrpcStatus[grpcErr.code]}` : 'refused at the edge:';
    const seen = `REST ${rest.status} ${restError.code} field=${restError.field} | ${door} ${decoded.code} field=${decoded.field}`;
    t.is(restError.code, row.code, seen);
    t.is(decoded.code, row.code, seen);
    // The v1 error body is `{error: {code, message, status}}` (CONTRACT part 1): it has no `field` to compare.
    if (row.path.startsWith('/api/v1/'))
      t.deepEqual(Object.keys(restError).sort(), ['code', 'message', 'status'], seen);
    else {
      t.is(restError.field, row.field, seen);
      t.deepEqual(restError.details, decoded.details, 'the same details through both doors');
    }
    t.is(decoded.field, row.field, seen);
    t.is(rest.status, ERROR_CATALOGUE[row.code].status, seen);
    if (grpcErr) t.is(grpcErr.code, grpcStatus!, seen);
    t.is(await snapshot(), before, 'a refused request changed nothing');
  });
}

test('the table covers many routes and every kind of bad input', (t) => {
  t.true(TABLE.length >= 30);
  const services = new Set(
    TABLE.map((r) => ALL_ROUTES.find((x) => x.method === r.method && x.path === r.path)?.service),
  );
  t.true(services.size >= 10, [...services].join(', '));
  // Serial tests run first: by now every row has run, most over gRPC, many through the typed door too.
  t.is(grpcRows.length + edgeRows.length, TABLE.length);
  t.log(`${grpcRows.length} rows over gRPC, ${edgeRows.length} refused at the edge: ${edgeRows.join('; ')}`);
  t.true(grpcRows.length >= 40, `${grpcRows.length} rows over gRPC`);
  t.true(typedRows.length >= 20, `${typedRows.length} rows in the typed form`);
});
