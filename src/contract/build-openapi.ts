import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/error-catalogue.js';
import type { RouteSpec } from './route.js';
import { ErrorEnvelope } from './schemas/list-envelope.js';
import { schemaExample } from './schema-example.js';
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

/** JSON Schema of a zod schema, as the client sends it (input side). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
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
export function routeExamples(r: RouteSpec): { request?: unknown; response?: unknown } {
  const prefix = ID_PREFIX_BY_TAG[r.tag] ?? 'id';
  return {
    ...(r.body
      ? {
          request:
            r.examples && 'request' in r.examples
              ? r.examples.request
              : schemaExample(jsonSchema(r.body, 'input'), prefix),
        }
      : {}),
    ...(r.response
      ? {
          response:
            r.examples && 'response' in r.examples
              ? r.examples.response
              : schemaExample(jsonSchema(r.response, 'output'), prefix),
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

/** The paths the gateway serves itself, outside the route table: health, discovery and metrics, all without a key. */
function gatewayPaths(): Record<string, Record<string, unknown>> {
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
    get: { operationId, summary, description, tags: [tag], security: [], responses },
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
        503: {
          description: 'Error codes: SERVICE_UNAVAILABLE',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
          'x-error-codes': ['SERVICE_UNAVAILABLE'],
        },
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
          content: json(Capabilities, schemaExample(jsonSchema(Capabilities, 'output'))),
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
        401: {
          description: 'Error codes: UNAUTHENTICATED (METRICS_TOKEN is set and the request does not carry it)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
          'x-error-codes': ['UNAUTHENTICATED'],
        },
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
function webhookDescriptions(): Record<string, unknown> {
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
                  example: schemaExample(jsonSchema(envelope, 'output'), 'evt'),
                },
              },
            },
            responses: {
              '2XX': { description: 'Received: the delivery is recorded `delivered`.' },
              default: { description: 'Any other answer, or none within 10 s: a failed attempt, retried.' },
            },
          },
        },
      ];
    }),
  );
}

/** Builds openapi.json (OpenAPI 3.1) from the route catalogue: the same schemas that validate requests. */
export function buildOpenApi(routes: RouteSpec[], info: { version: string }) {
  const paths: Record<string, Record<string, unknown>> = gatewayPaths();
  for (const r of routes) {
    const parameters: unknown[] = [];
    if (r.params) {
      const props = (jsonSchema(r.params, 'input').properties ?? {}) as Record<string, unknown>;
      for (const [name, schema] of Object.entries(props)) parameters.push({ name, in: 'path', required: true, schema });
    }
    if (r.query) {
      const js = jsonSchema(r.query, 'input');
      const req = new Set((js.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((js.properties ?? {}) as Record<string, unknown>))
        parameters.push({ name, in: 'query', required: req.has(name), schema });
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
    const codes = [...new Set([...(r.errors ?? []), ...COMMON_ERRORS])];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const c of codes) {
      const st = ERROR_CATALOGUE[c].status;
      byStatus.set(st, [...(byStatus.get(st) ?? []), c]);
    }
    const examples = routeExamples(r);
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
    };
    for (const [st, cs] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      responses[String(st)] = {
        description: `Error codes: ${cs.join(', ')}`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        'x-error-codes': cs,
      };
    }
    const op: Record<string, unknown> = {
      operationId: r.rpc.charAt(0).toLowerCase() + r.rpc.slice(1),
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
  return {
    openapi: '3.1.0',
    info: { title: 'Provider Resolution and Scheduling Service', version: info.version },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: webhookDescriptions(),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'service_live_… or service_test_… API key' },
      },
      schemas: { ErrorEnvelope: jsonSchema(ErrorEnvelope, 'output') },
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
