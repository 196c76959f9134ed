import test from 'ava';
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { credentials, status as GrpcStatus, type Client, type ServiceError as GrpcError } from '@grpc/grpc-js';
import { BookingServiceClient } from '../../src/gen/scheduling/v1/booking_service.js';
import { ImportServiceClient } from '../../src/gen/scheduling/v1/import_service.js';
import { OrganizationServiceClient } from '../../src/gen/scheduling/v1/organization_service.js';
import { ProviderServiceClient } from '../../src/gen/scheduling/v1/provider_service.js';
import { ResolutionServiceClient } from '../../src/gen/scheduling/v1/resolution_service.js';
import { WebhookServiceClient } from '../../src/gen/scheduling/v1/webhook_service.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { decodeServiceError } from '../../src/grpc/error-metadata.js';
import { messageOfRestInput } from '../../src/contract/typed-message.js';
import { bearer } from '../helpers/typed-calls.js';
import { request, type JsonResponse } from '../helpers/http.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

/**
 * Malformed input (issue 15): U+0000 anywhere, bodies nested past any sensible depth, and unbounded free-form JSON are
 * 400 VALIDATION_ERROR with `field` through both doors (REST, and the RPC over gRPC sent typed messages) and change
 * nothing; what was stored before the bounds never breaks a list.
 */

let svc: TestService;
let o: Awaited<ReturnType<typeof newOrganization>>;
const ids: Record<string, string> = {};
const clock = createTestClock('2026-03-02T12:00:00Z');
const customer = { name: 'Pat Doe', email: 'pat@example.com' };

/** A fresh resolution of the fixture organization (each confirm needs its own). */
async function newResolution() {
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: ids.service, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 3 },
    { 'idempotency-key': randomUUID() },
  );
  if (r.status !== 200) throw new Error(`fixture resolution: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { resolutionId: string; options: { optionId: string }[] };
}

test.before(async () => {
  svc = await startTestService({ clock });
  o = await newOrganization(svc, 'malformed');
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  ids.org = o.org.id;
  ids.provider = p.provider.id;
  ids.service = p.service.id;
  const r = await newResolution();
  ids.resolution = r.resolutionId;
  ids.option = r.options[0]!.optionId;
});
test.after.always(async () => {
  await svc?.stop();
});

/** `n` arrays nested in one another around `leaf`. */
const nestedArrays = (n: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < n; i++) v = [v];
  return v;
};
/** `n` objects nested in one another (`{a: {a: … leaf}}`). */
const nestedObjects = (n: number, leaf: unknown = 1): Record<string, unknown> => {
  let v: unknown = leaf;
  for (let i = 0; i < n; i++) v = { a: v };
  return v as Record<string, unknown>;
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
    'waitlist_entries',
    'continuity_records',
    'webhooks',
    'provider_imports',
    'events',
    'email_outbox',
  ];
  const parts: string[] = [];
  for (const t of tables) {
    const row = t === 'events' ? 'x.id::text' : 'x::text';
    const r = await svc.service.deps.db.query(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(${row}, '|' ORDER BY ${row}), '')) AS h FROM ${t} x`,
    );
    parts.push(`${t}:${r.rows[0].n}:${r.rows[0].h}`);
  }
  return parts.join(' ');
}

const CLIENTS = {
  BookingService: BookingServiceClient,
  ImportService: ImportServiceClient,
  OrganizationService: OrganizationServiceClient,
  ProviderService: ProviderServiceClient,
  ResolutionService: ResolutionServiceClient,
  WebhookService: WebhookServiceClient,
} as const;

/** Calls one unary RPC with a typed request message, resolving to its error (or failing when it succeeds). */
function callForError(
  route: { service: string; rpc: string },
  req: unknown,
  headers: Record<string, string>,
): Promise<GrpcError> {
  const Ctor = CLIENTS[route.service as keyof typeof CLIENTS];
  if (!Ctor) return Promise.reject(new Error(`no client for ${route.service}`));
  const c = new Ctor(svc.grpcTarget, credentials.createInsecure()) as unknown as Client;
  const md = bearer(svc.platformKey, headers);
  const fn = (c as unknown as Record<string, Function>)[route.rpc.charAt(0).toLowerCase() + route.rpc.slice(1)]!;
  return new Promise<GrpcError>((resolve, reject) => {
    fn.call(c, req, md, { deadline: Date.now() + 10_000 }, (err: GrpcError | null, res: unknown) =>
      err ? resolve(err) : reject(new Error(`gRPC accepted: ${JSON.stringify(res)}`)),
    );
  }).finally(() => c.close());
}

/** Asserts a REST answer is 400 VALIDATION_ERROR naming `field`, in the v2 envelope with the response's request id. */
function assertRefusedRest(t: import('ava').ExecutionContext, r: JsonResponse, field: string) {
  const seen = `${r.status} ${JSON.stringify(r.body)}`;
  t.is(r.status, 400, seen);
  t.is(r.body?.error?.code, 'VALIDATION_ERROR', seen);
  t.is(r.body?.error?.field, field, seen);
  t.is(r.body?.error?.status, 400, seen);
  t.regex(r.headers.get('x-service-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  t.is(r.body?.error?.requestId, r.headers.get('x-service-request-id'));
}

/** Asserts a gRPC error is INVALID_ARGUMENT with VALIDATION_ERROR naming `field` in its trailers. */
function assertRefusedGrpc(t: import('ava').ExecutionContext, err: GrpcError, field: string) {
  const decoded = decodeServiceError(err);
  const seen = `${GrpcStatus[err.code]} ${decoded.code} field=${decoded.field} ${err.details}`;
  t.is(err.code, GrpcStatus.INVALID_ARGUMENT, seen);
  t.is(decoded.code, 'VALIDATION_ERROR', seen);
  t.is(decoded.field, field, seen);
  t.regex(String(err.metadata.get('x-service-request-id')[0] ?? ''), /^req_/, 'the gRPC answer carries its request id');
}

/** A request of the table: a contract route, its parts, and the field the refusal must name. */
interface Row {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** Without Service-Organization-Id (organization endpoints act across the platform). */
  platform?: true;
  idempotent?: true;
  field: string;
  /** The field the RPC names, where the message calls it otherwise (a field whose type changed has a new name). */
  grpcField?: string;
  /** Why the input cannot be sent over gRPC at all: the REST door alone is asked. */
  restOnly?: string;
}

/** Protobuf strings are UTF-8: the client's encoder writes an unpaired surrogate as U+FFFD, so it never arrives. */
const NO_UTF8 = 'an unpaired surrogate has no UTF-8 form: a gRPC client sends U+FFFD in its place';

// `@name` is replaced by the fixture id of that name once the fixtures exist.
const NUL = '\u0000';
const NUL_ROWS: Row[] = [
  { method: 'GET', path: '/api/v2/providers/:id', params: { id: NUL }, field: 'id' },
  { method: 'GET', path: '/api/v2/providers/:id', params: { id: `prv_${NUL}x` }, field: 'id' },
  { method: 'GET', path: '/api/v2/bookings/:id', params: { id: NUL }, field: 'id' },
  { method: 'DELETE', path: '/api/v2/providers/:id', params: { id: `${NUL}` }, field: 'id' },
  { method: 'GET', path: '/api/v2/providers', query: { externalId: NUL }, field: 'externalId' },
  { method: 'GET', path: '/api/v2/bookings', query: { providerId: `a${NUL}` }, field: 'providerId' },
  {
    method: 'POST',
    path: '/api/v2/organizations',
    platform: true,
    body: { externalId: NUL, name: 'Nul' },
    field: 'externalId',
  },
  {
    method: 'PATCH',
    path: '/api/v2/organizations/:id',
    params: { id: '@org' },
    platform: true,
    body: { name: `Nul${NUL}` },
    field: 'name',
  },
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: { externalId: 'nul-1', displayName: `Dr. ${NUL}` },
    field: 'displayName',
  },
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: { externalId: 'nul-2', displayName: 'Dr. Nul', languageCodes: ['en', NUL] },
    field: 'languageCodes.1',
  },
  {
    method: 'PATCH',
    path: '/api/v2/providers/:id',
    params: { id: '@provider' },
    body: { bio: `x${NUL}` },
    field: 'bio',
  },
  {
    method: 'POST',
    path: '/api/v2/resolutions/:id/confirm',
    params: { id: '@resolution' },
    idempotent: true,
    body: { optionId: '@option', customer: { ...customer, email: `pat${NUL}@example.com` } },
    field: 'customer.email',
  },
  {
    method: 'POST',
    path: '/api/v2/resolutions/:id/confirm',
    params: { id: '@resolution' },
    idempotent: true,
    body: { optionId: '@option', customer, metadata: { note: `a${NUL}b` } },
    field: 'metadata.note',
  },
  {
    method: 'POST',
    path: '/api/v2/resolutions/:id/confirm',
    params: { id: '@resolution' },
    idempotent: true,
    body: { optionId: '@option', customer, metadata: { [`k${NUL}`]: 1 } },
    field: 'metadata',
  },
  {
    method: 'POST',
    path: '/api/v2/provider-imports',
    body: { providers: [{ externalId: 'imp-1', displayName: `Dr. ${NUL}` }] },
    field: 'providers.0.displayName',
    grpcField: 'providerRowValues.0.displayName',
  },
  {
    method: 'PUT',
    path: '/api/v2/webhooks',
    body: { url: `https://hooks.example.com/${NUL}`, events: ['booking.confirmed'] },
    field: 'url',
  },
  // An unpaired surrogate (`"\ud800"` in JSON) has no UTF-8 spelling either, and jsonb refuses it.
  {
    method: 'POST',
    path: '/api/v2/providers',
    body: { externalId: 'lone-1', displayName: 'Dr. \ud800' },
    field: 'displayName',
    restOnly: NO_UTF8,
  },
  {
    method: 'POST',
    path: '/api/v2/organizations',
    platform: true,
    body: { externalId: 'lone-\udfff', name: 'Lone' },
    field: 'externalId',
    restOnly: NO_UTF8,
  },
];

/** Replaces `@name` with the fixture id of that name. */
const resolveIds = (v: unknown): unknown => {
  if (typeof v === 'string') return v.startsWith('@') ? ids[v.slice(1)] : v;
  if (Array.isArray(v)) return v.map(resolveIds);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveIds(x)]));
  return v;
};

for (const [i, row] of NUL_ROWS.entries()) {
  test.serial(
    `unstorable text is refused through both doors #${i + 1}: ${row.method} ${row.path} (${row.field})`,
    async (t) => {
      const route = ALL_ROUTES.find((r) => r.method === row.method && r.path === row.path);
      if (!route) return t.fail(`no route ${row.method} ${row.path}`);
      const params = resolveIds(row.params ?? {}) as Record<string, string>;
      const query = resolveIds(row.query ?? {}) as Record<string, string>;
      const body = resolveIds(row.body);
      const headers: Record<string, string> = row.platform ? {} : { 'service-organization-id': ids.org! };
      if (row.idempotent) headers['idempotency-key'] = `nul-${i}`;
      const path =
        row.path.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(params[n]!)) +
        (row.query ? `?${new URLSearchParams(query)}` : '');
      const before = await snapshot();
      assertRefusedRest(
        t,
        await request(svc.url, row.method, path, { key: svc.platformKey, body, headers }),
        row.field,
      );
      // The typed message made field for field from the input (not the gateway's, which refuses such text at its
      // edge): the RPC itself must refuse it.
      if (row.restOnly) t.log(`REST only: ${row.restOnly}`);
      else
        assertRefusedGrpc(
          t,
          await callForError(route, messageOfRestInput(route, { params, query, body }), headers),
          row.grpcField ?? row.field,
        );
      t.is(await snapshot(), before, 'a refused request changed nothing');
    },
  );
}

test.serial('a refused call with U+0000 in its path id is still audited, and the audit drain goes on', async (t) => {
  const r = await o.platform.get(`/api/v2/providers/${encodeURIComponent(NUL)}`);
  t.is(r.status, 400);
  const requestId = r.headers.get('x-service-request-id');
  await svc.service.audit.flush({ timeoutMs: 10_000 });
  const stored = await svc.service.deps.db.query('SELECT resource_id, after FROM audit_events WHERE request_id = $1', [
    requestId,
  ]);
  t.is(stored.rows.length, 1, 'the call made with Service-Organization-Id is recorded');
  t.is(stored.rows[0]?.resource_id, null, 'an id that cannot be stored is recorded as no id');
  t.deepEqual(stored.rows[0]?.after, { error: { code: 'VALIDATION_ERROR' } });
});

test.serial('the v1 door refuses U+0000 in its v1 envelope', async (t) => {
  const r = await o.platform.get(`/api/v1/bookings/${encodeURIComponent(NUL)}`);
  t.is(r.status, 400, JSON.stringify(r.body));
  t.deepEqual(Object.keys(r.body.error).sort(), ['code', 'message', 'status']);
  t.is(r.body.error.code, 'VALIDATION_ERROR');
  const link = await request(svc.url, 'GET', `/api/v1/bookings/bkg_x/confirm?token=${encodeURIComponent(NUL)}`, {
    headers: { accept: 'application/json' },
  });
  t.is(link.status, 400, JSON.stringify(link.body));
  t.is(link.body.error.code, 'VALIDATION_ERROR');
});

test.serial('bodies nested past 32 levels are refused through both doors, wherever the nesting is', async (t) => {
  const route = (method: string, path: string) => ALL_ROUTES.find((r) => r.method === method && r.path === path)!;
  const headers = { 'service-organization-id': ids.org! };
  const before = await snapshot();

  // 50 nested arrays as the whole body. No typed message carries a body that is not an object: REST only.
  assertRefusedRest(t, await o.platform.post('/api/v2/providers', nestedArrays(50)), '(body)');
  // In a typed request nesting lives only in a free-form field (booking metadata, a Struct): past the contract's bound
  // the RPC refuses it on that field; past protobuf's own recursion limit it is undecodable, on `body`, before any
  // operation.
  const confirm = route('POST', '/api/v2/resolutions/:id/confirm');
  assertRefusedGrpc(
    t,
    await callForError(
      confirm,
      { id: ids.resolution, optionId: ids.option, customer, metadata: nestedObjects(33) },
      { ...headers, 'idempotency-key': randomUUID() },
    ),
    'metadata',
  );
  assertRefusedGrpc(
    t,
    await callForError(confirm, { id: 'res_deep', optionId: 'opt_deep', metadata: nestedObjects(60) }, headers),
    'body',
  );
  // 33 levels is one too many; 32 goes on to the schema (an array is not a provider: 400 on the body, not on depth).
  const at32 = await o.platform.post('/api/v2/providers', nestedArrays(32));
  t.is(at32.status, 400);
  t.notRegex(at32.body.error.message, /levels deep/);
  t.regex(
    (await o.platform.post('/api/v2/providers', nestedArrays(33))).body.error.message,
    /more than 32 levels deep/,
  );

  // 200,000 levels (400 KB of brackets): no stack overflow anywhere. JSON text reaches the REST door alone.
  const huge = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  assertRefusedRest(
    t,
    await request(svc.url, 'POST', '/api/v2/providers', { key: svc.platformKey, rawBody: huge, headers }),
    '(body)',
  );
  // Deep nesting under a member the schema does not know: named by that member, before any canonical JSON of the body.
  const junk = `{"serviceId":"${ids.service}","dateRange":{"from":"2026-03-03","to":"2026-03-04"},"junk":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  assertRefusedRest(
    t,
    await request(svc.url, 'POST', '/api/v2/resolutions', {
      key: svc.platformKey,
      rawBody: junk,
      headers: { ...headers, 'idempotency-key': randomUUID() },
    }),
    'junk',
  );
  const deepRow = `{"providers":[{"externalId":"deep","bio":${'['.repeat(100)}${']'.repeat(100)}}]}`;
  assertRefusedRest(
    t,
    await request(svc.url, 'POST', '/api/v2/provider-imports', { key: svc.platformKey, rawBody: deepRow, headers }),
    'providers',
  );
  t.is(await snapshot(), before, 'no refused request changed anything');
});

test.serial('a body of the wrong type is named as such, not as missing', async (t) => {
  const r = await o.platform.post('/api/v2/providers', {
    externalId: 'typed',
    displayName: 'Dr. Typed',
    bio: ['not', 'text'],
  });
  assertRefusedRest(t, r, 'bio');
  t.is(r.body.error.details[0].code, 'INVALID');
  t.regex(r.body.error.message, /expected string, received array/);
  const missing = await o.platform.post('/api/v2/providers', { displayName: 'Dr. Nameless' });
  t.like(missing.body.error.details[0], { field: 'externalId', code: 'REQUIRED', message: 'is required' });
});

test.serial(
  'booking metadata is bounded: 8 levels deep, 16 KB, 50 keys; what is over is refused and nothing is stored',
  async (t) => {
    const confirm = (resolutionId: string, optionId: string, metadata: unknown) =>
      o.api.post(
        `/api/v2/resolutions/${resolutionId}/confirm`,
        { optionId, customer, metadata },
        { 'idempotency-key': randomUUID() },
      );
    const bookings = async () =>
      (await svc.service.deps.db.query('SELECT count(*)::int AS n FROM bookings')).rows[0].n as number;
    const before = await snapshot();
    const countBefore = await bookings();
    const r = await newResolution();
    const snapBefore = await snapshot();

    const refusals: [string, unknown][] = [
      ['30 objects deep', nestedObjects(29)],
      ['9 levels deep', nestedObjects(9)],
      ['arrays 9 levels deep', { list: nestedArrays(8) }],
      ['over 16 KB', { blob: 'x'.repeat(16_384) }],
      ['over 16 KB in UTF-8 bytes', { blob: 'é'.repeat(8_200) }],
      ['51 keys', Object.fromEntries(Array.from({ length: 51 }, (_, k) => [`k${k}`, k]))],
      ['nested 2,000 levels', nestedObjects(2_000)],
    ];
    for (const [what, metadata] of refusals) {
      const res = await confirm(r.resolutionId, r.options[0]!.optionId, metadata);
      assertRefusedRest(t, res, 'metadata');
      t.pass(what);
    }
    t.is(await snapshot(), snapBefore, 'no refused confirm stored anything');
    t.is(await bookings(), countBefore);

    // Exactly at the bounds: 8 levels, 50 keys.
    const ok = await confirm(r.resolutionId, r.options[0]!.optionId, {
      a: nestedObjects(7, 'leaf'),
      ...Object.fromEntries(Array.from({ length: 49 }, (_, k) => [`k${k}`, k])),
    });
    t.is(ok.status, 200, JSON.stringify(ok.body));
    t.deepEqual(ok.body.metadata.a, nestedObjects(7, 'leaf'));
    t.not(await snapshot(), before);
  },
);

test.serial('metadata stored before the bound never breaks a list: deeper levels are answered as null', async (t) => {
  const r = await newResolution();
  const made = await o.api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { optionId: r.options[0]!.optionId, customer, metadata: { intake: 'web' } },
    { 'idempotency-key': randomUUID() },
  );
  t.is(made.status, 200, JSON.stringify(made.body));
  // As an older build stored it: 30 objects deep (the probe's case), and 3,000 (as deep as JSON.stringify had let through).
  for (const depth of [30, 3_000]) {
    const deep = `{"intake":"web","deep":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    await svc.service.deps.db.query('UPDATE bookings SET metadata = $2::jsonb WHERE id = $1', [made.body.id, deep]);
    const list = await o.api.get('/api/v2/bookings?limit=500');
    t.is(list.status, 200, `depth ${depth}: ${JSON.stringify(list.body).slice(0, 300)}`);
    const mine = list.body.data.find((b: { id: string }) => b.id === made.body.id);
    t.is(mine.metadata.intake, 'web');
    t.deepEqual(mine.metadata.deep, nestedObjects(7, null), 'levels past the 8th are answered as null');
    const one = await o.api.get(`/api/v2/bookings/${made.body.id}`);
    t.is(one.status, 200);
    t.deepEqual(one.body.metadata, mine.metadata);
    t.is((await o.api.get('/api/v1/bookings?limit=100')).status, 200);
    t.is((await o.platform.get('/api/v2/audit-events?limit=500')).status, 200);
  }
});

test('openapi.json states the metadata bounds', async (t) => {
  const spec = (await request(svc.url, 'GET', '/openapi.json')).body;
  const schema = spec.paths['/api/v2/resolutions/{id}/confirm'].post.requestBody.content['application/json'].schema;
  t.regex(schema.properties.metadata.description, /8 levels deep/);
  t.regex(schema.properties.metadata.description, /16 KB/);
  t.is(schema.properties.metadata.maxProperties, 50);
});

test('the service itself answers a 17 KB request path with 431 in the envelope and a request id', async (t) => {
  const { port } = new URL(svc.url);
  const answer = await new Promise<string>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(`GET /api/v2/providers/${'x'.repeat(17_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  t.regex(head, /^HTTP\/1\.1 431 /);
  const requestId = /x-service-request-id: (\S+)/i.exec(head)?.[1];
  t.truthy(requestId);
  t.like(JSON.parse(body).error, { code: 'VALIDATION_ERROR', status: 431, field: '(headers)', requestId });
});
