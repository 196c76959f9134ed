import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/error-catalogue.js';
import type { RouteSpec } from './route.js';
import { ErrorEnvelope, ErrorEnvelopeV1 } from './schemas/list-envelope.js';
import { schemaExample } from './schema-example.js';
import { exampleDaysOf, type ExampleDays } from './example-days.js';
import { Capabilities, Health, Readiness } from './schemas/discovery.js';
import { WEBHOOK_ENVELOPES, eventEnvelopeOf } from './schemas/event.js';

const COMMON_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

/**
 * The errors every request may meet at the edge, before any route: a request that is not valid HTTP/1.1 (or has no
 * Host) and one whose head comes too slowly (answer-client-errors.ts). The gateway's own paths declare these.
 */
const EDGE_ERRORS: ErrorCode[] = ['VALIDATION_ERROR', 'REQUEST_TIMEOUT'];

/**
 * Drops an `anyOf` that has an empty branch (`z.unknown().nullable()` gives `anyOf: [{}, {type: null}]`): the empty
 * schema already takes every value, so the node means the same without it and tools stop calling it illogical.
 */
function withoutEmptyAnyOf(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(withoutEmptyAnyOf);
  const o = node as Record<string, unknown>;
  if (Array.isArray(o.anyOf) && o.anyOf.some((b) => typeof b === 'object' && b && Object.keys(b).length === 0))
    delete o.anyOf;
  for (const v of Object.values(o)) withoutEmptyAnyOf(v);
}

/**
 * JSON Schemas already made, by side and zod schema: they do not change with the day, so the document of a new day
 * (its examples dated anew) reuses them instead of converting every schema again. Read only once made.
 */
const JSON_SCHEMAS = {
  input: new WeakMap<z.ZodType, Record<string, unknown>>(),
  output: new WeakMap<z.ZodType, Record<string, unknown>>(),
};

/** JSON Schema of a zod schema, as the client sends it (`input`) or as the service answers it (`output`). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const made = JSON_SCHEMAS[io].get(schema);
  if (made) return made;
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete s.$schema;
  withoutEmptyAnyOf(s);
  JSON_SCHEMAS[io].set(schema, s);
  return s;
}

/**
 * The schema openapi.json gives a query parameter: a parameter that validation reads as the text of an integer
 * (`queryInt`, its bounds from the parsed side) or of a boolean (`queryBool`) is published as an integer or a boolean,
 * so generated clients take `limit: 10` and `searchable: true`; the query string carries their text, and validation
 * is unchanged. Other parameters keep their schema.
 */
function queryParameterSchema(input: Record<string, unknown>, parsed: Record<string, unknown> | undefined) {
  const description = input.description !== undefined ? { description: input.description } : {};
  if (input.type !== 'string') return input;
  if (parsed?.type === 'integer')
    return {
      ...description,
      type: 'integer',
      ...(parsed.minimum !== undefined ? { minimum: parsed.minimum } : {}),
      ...(parsed.maximum !== undefined ? { maximum: parsed.maximum } : {}),
    };
  const values = input.enum as unknown[] | undefined;
  if (values?.length === 2 && values.includes('true') && values.includes('false'))
    return { ...description, type: 'boolean' };
  return input;
}

/** What each tag of openapi.json groups, shown by API viewers above its operations. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  service: 'Liveness, readiness and discovery of the deployment; no API key.',
  organizations: 'Organizations of a platform account (platform keys), their settings and overview.',
  'api-keys': 'API keys of a platform account: create (secret shown once), list, revoke; who the calling key is.',
  providers: 'The provider graph: providers with their codes, licenses and panel capacity.',
  services: 'Services (session types) a provider offers: duration, price, buffers.',
  'calendar-connections': 'Weekly availability schedules, date overrides and external ICS feeds of providers.',
  'provider-imports': 'Asynchronous bulk imports of providers (202, then poll the job).',
  resolutions: 'Resolve a request into at most 10 ranked options, with the candidates and why each was excluded.',
  holds: "Short holds on an option's slot before confirmation.",
  bookings: 'Confirmed bookings (v2): confirmation from a resolution, reads and lists.',
  'ranking-policies': 'Versioned ranking policies: weights, tie-breakers, activation, rollback and simulation.',
  continuity: 'Continuity-of-care records that keep a client with their provider.',
  waitlist: 'Waitlist entries for requests no option satisfied.',
  'manual-review': 'Providers whose data needs a person to look before they are offered.',
  analytics: 'Resolution and booking analytics of the organization.',
  webhooks: 'Webhook configuration, signed deliveries, their log and replays (CONTRACT part 6).',
  events:
    'The events of the last 30 days, each the envelope its webhook deliveries carry, for reconciliation (CONTRACT part 8).',
  inspector: 'Read-only views of the state machines and their actors, for developers.',
  audit: 'The immutable audit log and its hash-chain verification.',
  v1: 'The v1 API: professionals, slots and direct bookings with e-mailed confirmation links.',
};

/** Turns a Koa path (`/x/:id`) into an OpenAPI path (`/x/{id}`). */
function openapiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** Id prefix of the resource a route's tag names, for the bare `id` fields of its examples. */
const ID_PREFIX_BY_TAG: Record<string, string> = {
  organizations: 'org',
  'api-keys': 'key',
  providers: 'prv',
  services: 'svc',
  'calendar-connections': 'cal',
  'provider-imports': 'imp',
  resolutions: 'res',
  holds: 'hld',
  bookings: 'bkg',
  v1: 'bkg',
  'ranking-policies': 'pol',
  continuity: 'cty',
  waitlist: 'wl',
  'manual-review': 'prv',
  webhooks: 'whd',
  events: 'evt',
  inspector: 'res',
  audit: 'aud',
  analytics: 'org',
};

/** The request and response examples of a route: its own, else generated from the JSON Schemas openapi.json publishes. */
export function routeExamples(r: RouteSpec, days: ExampleDays): { request?: unknown; response?: unknown } {
  const prefix = ID_PREFIX_BY_TAG[r.tag] ?? 'id';
  return {
    ...(r.body
      ? {
          request:
            r.examples && 'request' in r.examples
              ? r.examples.request
              : schemaExample(jsonSchema(r.body, 'input'), days, prefix),
        }
      : {}),
    ...(r.response
      ? {
          response:
            r.examples && 'response' in r.examples
              ? r.examples.response
              : schemaExample(jsonSchema(r.response, 'output'), days, prefix),
        }
      : {}),
  };
}

/** Who may call a route, in a sentence. */
function accessSentence(r: RouteSpec): string {
  if (r.auth === 'none') return "No API key: the request's own token is the credential.";
  if (r.platformKeyOnly) return 'Platform keys only; an organization key is 403 PLATFORM_KEY_REQUIRED.';
  return (
    r.access ??
    "Any API key, acting in its organization (a platform key: the one named by Service-Organization-Id, else the platform's default organization)."
  );
}

/** The operation's description: the route's own, who may call, and the errors it declares beyond the common ones. */
function operationDescription(r: RouteSpec): string {
  const own = (r.errors ?? []).map((c) => `${ERROR_CATALOGUE[c].status} ${c}`);
  return [
    r.description,
    accessSentence(r),
    ...(own.length ? [`Errors besides the common ones: ${own.join(', ')}.`] : []),
  ].join('\n\n');
}

/** An example request id, as `X-Service-Request-Id` gives them. */
const EXAMPLE_REQUEST_ID = 'req_5f2c9a0e7b1d4c3a8e6f2b9d0c4a7e15';

/** The error body of a code as the service renders it (error-envelope.ts) with the catalogue's text: v1 or v2 form. */
function errorExample(code: ErrorCode, form: 'v1' | 'v2'): unknown {
  const entry = ERROR_CATALOGUE[code];
  if (form === 'v1') return { error: { code, message: entry.message, status: entry.status } };
  const invalid = code === 'VALIDATION_ERROR';
  return {
    error: {
      code,
      message: entry.message,
      status: entry.status,
      requestId: EXAMPLE_REQUEST_ID,
      ...(invalid ? { field: 'email' } : {}),
      recoverable: entry.recoverable,
      ...(entry.suggestedAction !== undefined ? { suggestedAction: entry.suggestedAction } : {}),
      ...(invalid ? { details: [{ field: 'email', code: 'INVALID', message: 'Invalid email address' }] } : {}),
    },
  };
}

/**
 * The error responses of an operation, one per HTTP status, from the error catalogue: the codes it may answer with
 * that status (`x-error-codes`), the envelope's schema and one example per code. `/api/v1/` paths answer the v1
 * envelope.
 */
function errorResponses(codes: ErrorCode[], form: 'v1' | 'v2', note?: Partial<Record<ErrorCode, string>>) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of new Set(codes)) {
    const st = ERROR_CATALOGUE[c].status;
    byStatus.set(st, [...(byStatus.get(st) ?? []), c]);
  }
  const responses: Record<string, unknown> = {};
  for (const [st, cs] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[String(st)] = {
      description: `Error codes: ${cs.map((c) => (note?.[c] ? `${c} (${note[c]})` : c)).join(', ')}`,
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${form === 'v1' ? 'ErrorEnvelopeV1' : 'ErrorEnvelope'}` },
          examples: Object.fromEntries(
            cs.map((c) => [c, { summary: ERROR_CATALOGUE[c].message, value: errorExample(c, form) }]),
          ),
        },
      },
      'x-error-codes': cs,
    };
  }
  return responses;
}

/** What the edge errors mean on the gateway's own paths. */
const EDGE_ERROR_NOTES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'a request that is not valid HTTP/1.1, or has no Host header',
  REQUEST_TIMEOUT: 'the request head came too slowly',
};

/** The paths the gateway serves itself, outside the route table: health, discovery and metrics, all without a key. */
function gatewayPaths(days: ExampleDays): Record<string, Record<string, unknown>> {
  const json = (schema: z.ZodType, example: unknown) => ({
    'application/json': { schema: jsonSchema(schema, 'output'), example },
  });
  const op = (
    operationId: string,
    tag: string,
    summary: string,
    description: string,
    responses: Record<string, unknown>,
  ) => ({
    get: {
      operationId,
      summary,
      description,
      tags: [tag],
      security: [],
      responses: { ...responses, ...errorResponses(EDGE_ERRORS, 'v2', EDGE_ERROR_NOTES) },
    },
  });
  return {
    '/healthz': op(
      'getHealth',
      'service',
      'Liveness: the process answers and its event loop turns.',
      'Answers `{"status": "ok"}` from a later turn of the gateway process\'s event loop, without touching Redis or PostgreSQL: it stays 200 while a store is down (the service restarts its private stores itself and recovers without a restart) and while the process drains on SIGTERM. Use /readyz to decide whether to send traffic. No API key.',
      {
        200: { description: 'The process is alive.', content: json(Health, { status: 'ok' }) },
      },
    ),
    '/readyz': op(
      'getReadiness',
      'service',
      'Readiness: Redis and PostgreSQL are reachable.',
      'Answers `{"status": "ready"}` when Redis answers PING and PostgreSQL `SELECT 1` (each check bounded to 1 s, so a hung store never makes this wait) and the internal API reports the same; otherwise 503 SERVICE_UNAVAILABLE with `Retry-After: 1` and a message naming the store, also while the process drains on SIGTERM. No API key.',
      {
        200: { description: 'Ready to serve.', content: json(Readiness, { status: 'ready' }) },
        ...errorResponses(['SERVICE_UNAVAILABLE'], 'v2'),
      },
    ),
    '/capabilities.json': op(
      'getCapabilities',
      'service',
      'What this deployment offers, in brief.',
      'Every endpoint with its gRPC method, the error codes, key types, limits and the gRPC package (reflection and health on). No API key.',
      {
        200: {
          description: 'The capabilities.',
          content: json(Capabilities, schemaExample(jsonSchema(Capabilities, 'output'), days)),
        },
      },
    ),
    '/openapi.json': op(
      'getOpenApi',
      'service',
      'This document.',
      'The OpenAPI 3.1 description of the REST API, built from the same route table and schemas that validate requests. No API key.',
      {
        200: {
          description: 'The OpenAPI document.',
          content: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
        },
      },
    ),
    '/metrics': op(
      'getMetrics',
      'service',
      'Prometheus metrics.',
      "Request and RPC histograms, errors by contract code, resolution phases, pool, Redis and worker-queue gauges and process metrics, in the Prometheus text format, read from memory (a scrape does no store round trip). No API key: with `METRICS_TOKEN` set it needs `Authorization: Bearer <METRICS_TOKEN>` (else 401 UNAUTHENTICATED); without it, anonymous callers read only the process metrics and the service's admission, pool and Redis health (no errors by code, nothing about callers' requests). `METRICS_PORT` serves the full exposition on a listener of its own.",
      {
        200: {
          description: 'Prometheus text exposition format.',
          content: {
            'text/plain': {
              schema: { type: 'string' },
              example:
                '# HELP scheduling_http_request_duration_seconds REST request duration\n# TYPE scheduling_http_request_duration_seconds histogram\n',
            },
          },
        },
        ...errorResponses(['UNAUTHENTICATED'], 'v2', {
          UNAUTHENTICATED: 'METRICS_TOKEN is set and the request does not carry it',
        }),
      },
    ),
  };
}

/**
 * The success answer of a streaming route: `text/event-stream`, whose events are described in prose and, for tools,
 * with each event's data schema under `x-sse-events` (OpenAPI 3.1 has no field for the items of a stream).
 */
function eventStreamResponse(event: string, data: z.ZodType | undefined, example: unknown) {
  return {
    description: `Server-Sent Events: \`event: ${event}\` with one JSON document as \`data\` per message; a \`: keepalive\` comment every 15 s; \`event: error\` with the error envelope ends a stream that fails after it started.`,
    headers: {
      'Cache-Control': { schema: { type: 'string', const: 'no-cache' } },
      'X-Accel-Buffering': { schema: { type: 'string', const: 'no' } },
    },
    content: {
      'text/event-stream': {
        schema: { type: 'string' },
        example: `event: ${event}\ndata: ${JSON.stringify(example)}\n\n`,
        'x-sse-events': {
          [event]: data ? jsonSchema(data, 'output') : {},
          error: { $ref: '#/components/schemas/ErrorEnvelope' },
        },
      },
    },
  };
}

/** The headers every webhook delivery carries (CONTRACT part 6). */
const WEBHOOK_HEADERS: { name: string; description: string }[] = [
  { name: 'webhook-id', description: 'The event id (the envelope `id`): the same on every retry and replay.' },
  { name: 'webhook-timestamp', description: 'Epoch seconds of this attempt.' },
  {
    name: 'webhook-signature',
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the decoded bytes of the `whsec_` secret; after a rotation, two space-separated signatures for 24 hours.',
  },
  { name: 'X-Service-Timestamp', description: 'Epoch seconds of this attempt (the same as `webhook-timestamp`).' },
  {
    name: 'X-Service-Signature',
    description: 'The authoritative form: `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`.',
  },
];

/**
 * The `webhooks` section of openapi.json: one entry per event type (and `webhook.test`), the POST a receiver gets,
 * with the envelope of that type and its data as the body; GET /api/v2/events lists the same envelopes.
 */
function webhookDescriptions(days: ExampleDays): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_ENVELOPES.map(({ type, data }) => {
      const envelope = eventEnvelopeOf(type, data);
      const meta = z.globalRegistry.get(data) as { description?: string } | undefined;
      return [
        type,
        {
          post: {
            operationId: `webhook_${type.replace(/\./g, '_')}`,
            summary: `\`${type}\`: ${meta?.description ?? ''}`.trim(),
            description:
              'Sent by POST to the URL of the organization’s webhook when it subscribes to this type (or `*`), for live-mode events only (test-mode deliveries are recorded `suppressed`, never sent). Verify the signature over the raw body, then answer 2xx within 10 s; anything else is retried after the configured delays and dead-lettered after the fifth failure. Deliveries are at least once: deduplicate on `id`. GET /api/v2/events lists the same envelopes for 30 days.',
            tags: ['webhooks'],
            security: [],
            parameters: WEBHOOK_HEADERS.map((h) => ({
              name: h.name,
              in: 'header',
              required: true,
              description: h.description,
              schema: { type: 'string' },
            })),
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: jsonSchema(envelope, 'output'),
                  example: schemaExample(jsonSchema(envelope, 'output'), days, 'evt'),
                },
              },
            },
            responses: {
              '2XX': { description: 'Received: the delivery is recorded `delivered`.' },
              '4XX': { description: 'Refused by the receiver (a bad signature, say): a failed attempt, retried.' },
              default: { description: 'Any other answer, or none within 10 s: a failed attempt, retried.' },
            },
          },
        },
      ];
    }),
  );
}

/** The licence openapi.json states (`info.license`): the service is private, no licence is granted. */
const LICENSE = { name: 'Proprietary: all rights reserved, no licence granted', identifier: 'LicenseRef-Proprietary' };

/** True when some request path fits both templates (`/a/{x}/c` and `/a/b/{y}`): same length, no two literals differ. */
function templatesOverlap(a: string, b: string): boolean {
  const sa = a.split('/');
  const sb = b.split('/');
  const param = (seg: string) => seg.startsWith('{');
  return sa.length === sb.length && sa.every((seg, i) => seg === sb[i] || param(seg) || param(sb[i]!));
}

/**
 * Notes on each operation, as `x-overlapping-paths`, the path templates some request path fits besides its own (the CONTRACT fixes both
 * `/api/v2/webhooks/deliveries/{id}` and `/api/v2/webhooks/{deliveryId}/replay`; `/api/v2/webhooks/deliveries/replay`
 * fits both). Such templates must share no method, so every request still has one operation; building fails otherwise.
 */
function noteOverlappingPaths(paths: Record<string, Record<string, unknown>>): void {
  const methods = (p: string) => Object.keys(paths[p]!);
  const notes = new Map<string, Record<string, string>>();
  for (const a of Object.keys(paths)) {
    for (const b of Object.keys(paths)) {
      if (b === a || !templatesOverlap(a, b)) continue;
      const shared = methods(a).filter((m) => methods(b).includes(m));
      if (shared.length > 0) throw new Error(`${a} and ${b} overlap and both answer ${shared.join(', ')}`);
      const list = (p: string) =>
        methods(p)
          .map((m) => m.toUpperCase())
          .join(', ');
      notes.set(a, {
        ...notes.get(a),
        [b]: `Some request paths fit both templates; this one answers ${list(a)} and ${b} answers ${list(b)}, so every request has one operation. The CONTRACT fixes both paths.`,
      });
    }
  }
  for (const [a, note] of notes)
    for (const op of Object.values(paths[a]!)) Object.assign(op as object, { 'x-overlapping-paths': note });
}

/**
 * Builds openapi.json (OpenAPI 3.1) from the route catalogue: the same schemas that validate requests. Examples are
 * dated relative to `today`, the day the document is served (slots a week or two ahead, licences expiring a year
 * ahead), so a document never shows a past date.
 */
export function buildOpenApi(routes: RouteSpec[], info: { version: string; today: Date }) {
  const days = exampleDaysOf(info.today);
  const paths: Record<string, Record<string, unknown>> = gatewayPaths(days);
  for (const r of routes) {
    const parameters: unknown[] = [];
    if (r.params) {
      const props = (jsonSchema(r.params, 'input').properties ?? {}) as Record<string, unknown>;
      for (const [name, schema] of Object.entries(props)) parameters.push({ name, in: 'path', required: true, schema });
    }
    if (r.query) {
      const js = jsonSchema(r.query, 'input');
      const parsed = (jsonSchema(r.query, 'output').properties ?? {}) as Record<string, Record<string, unknown>>;
      const req = new Set((js.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((js.properties ?? {}) as Record<string, Record<string, unknown>>))
        parameters.push({
          name,
          in: 'query',
          required: req.has(name),
          schema: queryParameterSchema(schema, parsed[name]),
        });
    }
    for (const h of r.headers ?? [])
      parameters.push({
        name: h.name,
        in: 'header',
        required: h.required,
        description: h.description,
        schema: { type: 'string' },
      });
    if (r.path.startsWith('/api/v2/') && r.auth !== 'none')
      parameters.push({
        name: 'Service-Organization-Id',
        in: 'header',
        required: false,
        description: 'Platform keys only: act inside this organization.',
        schema: { type: 'string' },
      });
    const examples = routeExamples(r, days);
    const responses: Record<string, unknown> = {
      [String(r.successStatus ?? 200)]: r.stream
        ? eventStreamResponse(r.stream.event, r.response, examples.response)
        : {
            description: 'Success',
            ...(r.response
              ? {
                  content: {
                    'application/json': { schema: jsonSchema(r.response, 'output'), example: examples.response },
                  },
                }
              : {}),
          },
      ...errorResponses([...(r.errors ?? []), ...COMMON_ERRORS], r.path.startsWith('/api/v1/') ? 'v1' : 'v2'),
    };
    const op: Record<string, unknown> = {
      operationId: r.restForm?.operationId ?? r.rpc.charAt(0).toLowerCase() + r.rpc.slice(1),
      summary: r.summary,
      description: operationDescription(r),
      tags: [r.tag],
      'x-grpc-method': `scheduling.v1.${r.service}/${r.rpc}`,
      ...(r.platformKeyOnly ? { 'x-platform-key-required': true } : {}),
      ...(r.auth === 'none' ? { security: [] } : {}),
      parameters,
      responses,
    };
    if (r.body)
      op.requestBody = {
        required: !r.bodyOptional,
        content: { 'application/json': { schema: jsonSchema(r.body, 'input'), example: examples.request } },
      };
    if (r.path.startsWith('/api/v1/')) op.deprecated = false;
    paths[openapiPath(r.path)] = { ...(paths[openapiPath(r.path)] ?? {}), [r.method.toLowerCase()]: op };
  }
  noteOverlappingPaths(paths);
  return {
    openapi: '3.1.0',
    info: { title: 'Provider Resolution and Scheduling Service', version: info.version, license: LICENSE },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: webhookDescriptions(days),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'service_live_… or service_test_… API key' },
      },
      schemas: {
        ErrorEnvelope: jsonSchema(ErrorEnvelope, 'output'),
        ErrorEnvelopeV1: jsonSchema(ErrorEnvelopeV1, 'output'),
      },
    },
    'x-error-codes': Object.fromEntries(
      Object.entries(ERROR_CATALOGUE).map(([c, e]) => [
        c,
        { status: e.status, recoverable: e.recoverable, message: e.message },
      ]),
    ),
  };
}

/** Builds capabilities.json: what this deployment offers, in brief. */
export function buildCapabilities(
  routes: RouteSpec[],
  info: { version: string; limits: Record<string, number> },
): z.infer<typeof Capabilities> {
  return {
    service: 'provider-resolution-scheduling',
    version: info.version,
    apiVersions: ['v1', 'v2'],
    eventApiVersion: '2026-11-01',
    endpoints: routes.map((r) => ({
      method: r.method,
      path: r.path,
      summary: r.summary,
      grpc: `scheduling.v1.${r.service}/${r.rpc}`,
    })),
    errorCodes: Object.keys(ERROR_CATALOGUE),
    keyTypes: ['platform_live', 'platform_test', 'organization_live', 'organization_test'],
    limits: info.limits,
    grpc: { package: 'scheduling.v1', reflection: true, health: true },
  };
}
