import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/error-catalogue.js';
import type { RouteSpec } from './route.js';
import { ErrorEnvelope } from './schemas/list-envelope.js';

const COMMON_ERRORS: ErrorCode[] = ['VALIDATION_ERROR', 'INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

/** JSON Schema of a zod schema, as the client sends it (input side). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}

/** Turns a Koa path (`/x/:id`) into an OpenAPI path (`/x/{id}`). */
function openapiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** Builds openapi.json (OpenAPI 3.1) from the route catalogue: the same schemas that validate requests. */
export function buildOpenApi(routes: RouteSpec[], info: { version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const parameters: unknown[] = [];
    if (r.params) {
      const props = (jsonSchema(r.params, 'input').properties ?? {}) as Record<string, unknown>;
      for (const [name, schema] of Object.entries(props)) parameters.push({ name, in: 'path', required: true, schema });
    }
    if (r.query) {
      const js = jsonSchema(r.query, 'input');
      const req = new Set((js.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((js.properties ?? {}) as Record<string, unknown>)) parameters.push({ name, in: 'query', required: req.has(name), schema });
    }
    for (const h of r.headers ?? []) parameters.push({ name: h.name, in: 'header', required: h.required, description: h.description, schema: { type: 'string' } });
    if (r.path.startsWith('/api/v2/') && r.auth !== 'none') parameters.push({ name: 'Service-Organization-Id', in: 'header', required: false, description: 'Platform keys only: act inside this organization.', schema: { type: 'string' } });
    const codes = [...new Set([...(r.errors ?? []), ...COMMON_ERRORS])];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const c of codes) {
      const st = ERROR_CATALOGUE[c].status;
      byStatus.set(st, [...(byStatus.get(st) ?? []), c]);
    }
    const responses: Record<string, unknown> = {
      [String(r.successStatus ?? 200)]: { description: 'Success', ...(r.response ? { content: { 'application/json': { schema: jsonSchema(r.response, 'output') } } } : {}) },
    };
    for (const [st, cs] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      responses[String(st)] = { description: `Error codes: ${cs.join(', ')}`, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } }, 'x-error-codes': cs };
    }
    const op: Record<string, unknown> = {
      operationId: r.rpc.charAt(0).toLowerCase() + r.rpc.slice(1),
      summary: r.summary,
      tags: [r.tag],
      'x-grpc-method': `scheduling.v1.${r.service}/${r.rpc}`,
      ...(r.platformKeyOnly ? { 'x-platform-key-required': true } : {}),
      ...(r.auth === 'none' ? { security: [] } : {}),
      parameters,
      responses,
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(r.body, 'input') } } };
    if (r.path.startsWith('/api/v1/')) op.deprecated = false;
    paths[openapiPath(r.path)] = { ...(paths[openapiPath(r.path)] ?? {}), [r.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Provider Resolution and Scheduling Service', version: info.version },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'service_live_… or service_test_… API key' } },
      schemas: { ErrorEnvelope: jsonSchema(ErrorEnvelope, 'output') },
    },
    'x-error-codes': Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([c, e]) => [c, { status: e.status, recoverable: e.recoverable, message: e.message }])),
  };
}

/** Builds capabilities.json: what this deployment offers, in brief. */
export function buildCapabilities(routes: RouteSpec[], info: { version: string; limits: Record<string, number> }) {
  return {
    service: 'provider-resolution-scheduling',
    version: info.version,
    apiVersions: ['v1', 'v2'],
    eventApiVersion: '2026-11-01',
    endpoints: routes.map((r) => ({ method: r.method, path: r.path, summary: r.summary, grpc: `scheduling.v1.${r.service}/${r.rpc}` })),
    errorCodes: Object.keys(ERROR_CATALOGUE),
    keyTypes: ['platform_live', 'platform_test', 'organization_live', 'organization_test'],
    limits: info.limits,
    grpc: { package: 'scheduling.v1', reflection: true, health: true },
  };
}
