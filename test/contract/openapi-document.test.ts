import test from 'ava';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApi, routeExamples } from '../../src/contract/build-openapi.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';

/** openapi.json exactly as GET /openapi.json serves it (the JSON text, parsed back). */
const doc = JSON.parse(JSON.stringify(buildOpenApi(ALL_ROUTES, { version: '0.0.0-test' })));
const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op })),
);

/** Every node of a JSON value with its JSON pointer. */
function* walk(value: unknown, pointer = ''): Generator<[string, Record<string, unknown>]> {
  if (value === null || typeof value !== 'object') return;
  yield [pointer, value as Record<string, unknown>];
  for (const [k, v] of Object.entries(value)) yield* walk(v, `${pointer}/${k}`);
}

test('openapi.json passes the OpenAPI 3.1 schema validator', async (t) => {
  const result = await new Validator().validate(doc);
  t.true(result.valid, `openapi.json is not valid OpenAPI 3.1:\n${JSON.stringify(result.errors, null, 2)}`);
});

test('every operation has a description beyond its summary', (t) => {
  for (const { path, method, op } of operations) {
    t.true(
      typeof op.description === 'string' && op.description.length > 20 && op.description !== op.summary,
      `${method.toUpperCase()} ${path}`,
    );
  }
});

test('every request and response example parses with the zod schema of its route', (t) => {
  for (const r of ALL_ROUTES) {
    const ex = routeExamples(r);
    if (r.body) {
      const parsed = r.body.safeParse(ex.request);
      t.true(parsed.success, `${r.method} ${r.path} request example: ${parsed.error?.message}`);
    }
    if (r.response) {
      const parsed = r.response.safeParse(ex.response);
      t.true(parsed.success, `${r.method} ${r.path} response example: ${parsed.error?.message}`);
    }
  }
});

test('every operation shows its examples in openapi.json', (t) => {
  for (const r of ALL_ROUTES) {
    const op = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')][r.method.toLowerCase()];
    if (r.body) t.not(op.requestBody.content['application/json'].example, undefined, `${r.path} request`);
    const success = op.responses[String(r.successStatus ?? 200)].content;
    if (r.stream) {
      const data = /^data: (.*)$/m.exec(success['text/event-stream'].example)?.[1];
      t.true(r.response!.safeParse(JSON.parse(data ?? 'null')).success, `${r.path} stream example`);
    } else if (r.response) t.not(success['application/json'].example, undefined, `${r.path} response`);
  }
  for (const path of ['/healthz', '/readyz', '/capabilities.json', '/openapi.json', '/metrics']) {
    t.truthy(doc.paths[path]?.get?.description, path);
    t.deepEqual(doc.paths[path].get.security, [], `${path} needs no key`);
  }
});

test('schemas are tight: no integer may be negative unless it says so, instants are date-time, import rows are providers', (t) => {
  for (const [pointer, node] of walk(doc.paths)) {
    if (node.type === 'integer' && pointer.includes('/schema')) {
      t.true(typeof node.minimum === 'number' && node.minimum >= 0, `${pointer} allows negative integers`);
    }
    const props = node.properties as Record<string, Record<string, unknown>> | undefined;
    for (const [name, prop] of Object.entries(props ?? {})) {
      if (
        !/^(createdAt|updatedAt|cancelledAt|revokedAt|completedAt|activatedAt|generatedAt|replayedAt|nextAttemptAt|dueAt)$/.test(
          name,
        )
      )
        continue;
      const branches = (prop.anyOf as Record<string, unknown>[] | undefined) ?? [prop];
      t.true(
        branches.some((b) => b.format === 'date-time'),
        `${pointer}/properties/${name} is not date-time`,
      );
    }
  }
  const rows =
    doc.paths['/api/v2/provider-imports'].post.requestBody.content['application/json'].schema.properties.providers
      .items;
  t.truthy(rows.properties?.displayName, 'import rows are described as providers');
  t.deepEqual(rows.required, ['externalId']);
});

test('every tag an operation uses is described, and a body the operation may go without is not required', (t) => {
  const described = new Map((doc.tags as { name: string; description: string }[]).map((x) => [x.name, x.description]));
  const used = new Set<string>();
  for (const ops of Object.values(
    doc.paths as Record<string, Record<string, { tags: string[]; requestBody?: { required: boolean } }>>,
  )) {
    for (const op of Object.values(ops)) for (const tag of op.tags) used.add(tag);
  }
  for (const tag of used) t.true((described.get(tag) ?? '').length > 20, `tag ${tag}`);
  t.false(doc.paths['/api/v2/resolutions/{id}/options/{optionId}/hold'].post.requestBody.required);
  t.false(doc.paths['/api/v1/bookings/{id}/cancel'].post.requestBody.required);
  t.true(doc.paths['/api/v2/resolutions/{id}/confirm'].post.requestBody.required);
});
