import test from 'ava';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApi, routeExamples } from '../../src/contract/build-openapi.js';
import { exampleDaysOf } from '../../src/contract/example-days.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { ErrorEnvelope, ErrorEnvelopeV1 } from '../../src/contract/schemas/list-envelope.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/error-catalogue.js';

/** The day the document is served, as the service's clock gives it (a Thursday). */
const TODAY = new Date('2031-01-09T15:30:00Z');
/** openapi.json exactly as GET /openapi.json serves it on TODAY (the JSON text, parsed back). */
const docOf = (today: Date) => JSON.parse(JSON.stringify(buildOpenApi(ALL_ROUTES, { version: '0.0.0-test', today })));
const doc = docOf(TODAY);
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
    const ex = routeExamples(r, exampleDaysOf(TODAY));
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

/** Every example value of a document (`example`, and the values of `examples` of media types and schemas). */
function examplesOf(value: unknown): unknown[] {
  const found: unknown[] = [];
  for (const [pointer, node] of walk(value)) {
    if ('example' in node) found.push(node.example);
    if (Array.isArray(node.examples)) found.push(...node.examples);
    else if (node.examples && typeof node.examples === 'object' && !pointer.endsWith('/properties'))
      found.push(...Object.values(node.examples as Record<string, { value: unknown }>).map((e) => e.value));
  }
  return found;
}

/** The dates (`YYYY-MM-DD`, alone or starting an instant) in a JSON value, with the field each is under. */
function datesIn(value: unknown): { field: string; date: string }[] {
  const out: { field: string; date: string }[] = [];
  for (const [pointer, node] of walk(value)) {
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'string')
        for (const m of v.matchAll(/\b(\d{4}-\d{2}-\d{2})/g)) out.push({ field: k, date: m[1]! });
    }
    void pointer;
  }
  return out;
}

const daysBetween = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 86_400_000;

test('examples are dated from the day the document is served: none past, slots a week or two ahead, licences a year', (t) => {
  for (const today of [TODAY, new Date('2031-12-30T23:59:00Z'), new Date('2032-02-28T00:00:00Z')]) {
    const day = today.toISOString().slice(0, 10);
    const dates = examplesOf(docOf(today)).flatMap(datesIn);
    t.true(dates.length > 100, `${day}: ${dates.length} dates`);
    for (const { field, date } of dates) {
      const ahead = daysBetween(day, date);
      t.true(ahead >= 0, `${day}: ${field} ${date} is past`);
      if (/^(start|end|slotStart|from|date|dueAt)$/.test(field))
        t.true(ahead >= 7 && ahead <= 14, `${day}: ${field} ${date} is not a week or two ahead`);
    }
    const licence =
      docOf(today).paths['/api/v2/providers'].post.requestBody.content['application/json'].example.licenseRecords[0];
    t.true(daysBetween(day, licence.expiresAt) >= 365, `${day}: licence expires ${licence.expiresAt}`);
    const range =
      docOf(today).paths['/api/v2/resolutions'].post.requestBody.content['application/json'].example.dateRange;
    t.is(daysBetween(range.from, range.to), 7);
    t.is(new Date(`${range.from}T00:00:00Z`).getUTCDay(), 1, 'the example week starts on a Monday');
  }
  // The v1 example slot id decodes to the example day's slot.
  const v1 = doc.paths['/api/v1/bookings'].post.requestBody.content['application/json'].example;
  const decoded = JSON.parse(Buffer.from(v1.slotId, 'base64url').toString('utf8'));
  t.is(new Date(decoded[3]).toISOString(), `${exampleDaysOf(TODAY).slotDay}T13:00:00.000Z`);
});

test('integer and boolean query parameters are typed as such, with the bounds validation applies', (t) => {
  let integers = 0;
  let booleans = 0;
  for (const { path, method, op } of operations) {
    for (const p of (op.parameters ?? []) as { name: string; in: string; schema: Record<string, unknown> }[]) {
      if (p.in !== 'query') continue;
      t.false(p.schema.type === 'string' && p.schema.pattern === '^\\d+$', `${method} ${path} ${p.name} is a string`);
      t.notDeepEqual(p.schema.enum, ['true', 'false'], `${method} ${path} ${p.name}`);
      if (p.schema.type === 'integer') {
        integers++;
        t.true(typeof p.schema.minimum === 'number' && typeof p.schema.maximum === 'number', `${path} ${p.name}`);
      }
      if (p.schema.type === 'boolean') booleans++;
    }
  }
  t.true(integers >= 20, `${integers} integer parameters`);
  t.true(booleans >= 1);
  const providers = doc.paths['/api/v2/providers'].get.parameters as { name: string; schema: unknown }[];
  t.deepEqual(providers.find((p) => p.name === 'limit')?.schema, { type: 'integer', minimum: 1, maximum: 500 });
  t.deepEqual(providers.find((p) => p.name === 'searchable')?.schema, { type: 'boolean' });
});

test('every operation has 4xx responses with one example per code from the error catalogue, in its envelope', (t) => {
  for (const { path, method, op } of operations) {
    const errors = Object.entries(op.responses as Record<string, any>).filter(([st]) => /^4\d\d$/.test(st));
    t.true(errors.length > 0, `${method} ${path} has no 4xx`);
    for (const [st, response] of errors) {
      const media = response.content['application/json'];
      const envelope = path.startsWith('/api/v1/') ? ErrorEnvelopeV1 : ErrorEnvelope;
      t.is(
        media.schema.$ref,
        `#/components/schemas/${path.startsWith('/api/v1/') ? 'ErrorEnvelopeV1' : 'ErrorEnvelope'}`,
      );
      t.deepEqual(Object.keys(media.examples), response['x-error-codes'], `${method} ${path} ${st}`);
      for (const [code, ex] of Object.entries(media.examples as Record<string, { value: any }>)) {
        t.is<number, number>(ERROR_CATALOGUE[code as ErrorCode].status, Number(st), `${path} ${code}`);
        t.true(envelope.safeParse(ex.value).success, `${method} ${path} ${code} example`);
        t.is(ex.value.error.message, ERROR_CATALOGUE[code as ErrorCode].message);
      }
    }
  }
  for (const [type, item] of Object.entries(doc.webhooks as Record<string, any>))
    t.truthy(item.post.responses['4XX'], `webhook ${type}`);
});

test('info states a licence; overlapping path templates are noted and never share a method; no empty anyOf', (t) => {
  t.truthy(doc.info.license?.name);
  t.truthy(doc.info.license?.identifier);
  const noted = operations.filter(({ op }) => 'x-overlapping-paths' in op);
  t.deepEqual(noted.map(({ path, method }) => `${method} ${path}`).sort(), [
    'get /api/v2/webhooks/deliveries/{id}',
    'post /api/v2/webhooks/{deliveryId}/replay',
  ]);
  for (const { path, op } of noted) {
    for (const other of Object.keys(op['x-overlapping-paths'] as object)) {
      const methods = (p: string) => Object.keys(doc.paths[p]);
      t.deepEqual(
        methods(path).filter((m) => methods(other).includes(m)),
        [],
        `${path} and ${other} share a method`,
      );
    }
  }
  for (const [pointer, node] of walk(doc))
    if (Array.isArray(node.anyOf))
      t.false(
        (node.anyOf as object[]).some((b) => Object.keys(b).length === 0),
        `${pointer} has an empty anyOf branch`,
      );
});
