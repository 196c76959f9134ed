import test from 'ava';
import { z } from 'zod';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { schemaExample } from '../../src/contract/schema-example.js';
import { exampleDaysOf } from '../../src/contract/example-days.js';
import {
  messageOfRestInput,
  requestGroups,
  responseMessageOf,
  restOfResponseMessage,
} from '../../src/contract/typed-message.js';
import { GRPC_SERVICES } from '../../src/grpc/service-registry.js';
import { restInputOfMessage } from '../helpers/typed-messages.js';
import { protoFieldNameIn, protoShapeOf } from '../../src/contract/proto-shape.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A REST value as the typed form keeps it: nulls and absent fields alike, instants to the millisecond in UTC. */
function normalized(v: unknown): unknown {
  // An item of a free-form list in an example is null: a typed list (ConstraintValue, MachineState) has no null item.
  if (Array.isArray(v)) return v.filter((x) => x !== null && x !== undefined).map(normalized);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null && x !== undefined)
        .map(([k, x]) => [k, normalized(x)]),
    );
  }
  return typeof v === 'string' && ISO.test(v) ? new Date(v).toISOString() : v;
}

/** The generated serializers of a route's method. */
function methodOf(service: keyof typeof GRPC_SERVICES, rpc: string) {
  const def = GRPC_SERVICES[service].definition as ServiceDefinition;
  const m = Object.values(def).find((d) => d.path === `/scheduling.v1.${service}/${rpc}`);
  if (!m) throw new Error(`${service}/${rpc} has no generated method`);
  return m;
}

/**
 * A REST body as its typed message reads it: a value where the contract takes a value or a list of them (v1
 * constraints, `"en"` or `["en"]`) is a list of one; the service reads both alike.
 */
function asTyped(schema: z.ZodType, v: unknown): unknown {
  const shape = protoShapeOf(schema, 'input');
  if (shape.kind === 'repeated' && v !== undefined && v !== null && !Array.isArray(v)) return [v];
  if (shape.kind !== 'message' || !v || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k,
      k in shape.schema.shape ? asTyped(shape.schema.shape[k] as z.ZodType, x) : x,
    ]),
  );
}

const example = (schema: z.ZodType, io: 'input' | 'output') =>
  schemaExample(
    z.toJSONSchema(schema, { io, unrepresentable: 'any' }),
    exampleDaysOf(new Date('2026-05-01T12:00:00Z')),
  );

test('every route answers in its typed response message: the REST example survives encoding and decoding field for field', (t) => {
  let checked = 0;
  for (const r of ALL_ROUTES) {
    // A route on another route's RPC (a v1 read) renders that RPC's answer one way: booking-v1-views.test.ts.
    if (!r.response || r.service === 'GatewayService' || r.restForm?.response) continue;
    const result = r.examples && 'response' in r.examples ? r.examples.response : example(r.response, 'output');
    const m = methodOf(r.service, r.rpc);
    const decoded = m.responseDeserialize(m.responseSerialize(responseMessageOf(r, result))) as Record<string, unknown>;
    t.deepEqual(normalized(restOfResponseMessage(r, decoded)), normalized(result), `${r.method} ${r.path}`);
    checked++;
  }
  t.true(checked >= 70, `${checked} routes`);
});

test('every route takes its input in typed request fields: path, query and body survive encoding and decoding', (t) => {
  let checked = 0;
  for (const r of ALL_ROUTES) {
    // A REST form of another route's RPC (a v1 form) is mapped onto that route's message by its own mapping.
    if (r.service === 'GatewayService' || r.restForm?.request) continue;
    const groups = requestGroups(r);
    const text = (o: unknown) =>
      Object.fromEntries(
        Object.entries((o ?? {}) as Record<string, unknown>).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.join(',') : String(v),
        ]),
      );
    // Path and query text; a query-string integer's input side only says "digits", so it takes its number's example.
    const urlText = (kind: 'params' | 'query') => {
      const schema = groups.find((g) => g.kind === kind)?.schema;
      if (!schema) return {};
      const input = (example(schema, 'input') ?? {}) as Record<string, unknown>;
      const output = (example(schema, 'output') ?? {}) as Record<string, unknown>;
      for (const [k, f] of Object.entries(schema.shape))
        if (k in input && protoShapeOf(f as z.ZodType, 'input').kind === 'int64' && output[k] != null)
          input[k] = output[k];
      return text(input);
    };
    const input = {
      params: urlText('params'),
      query: urlText('query'),
      body: r.body
        ? r.examples && 'request' in r.examples
          ? r.examples.request
          : example(r.body, 'input')
        : undefined,
    };
    const m = methodOf(r.service, r.rpc);
    const decoded = m.requestDeserialize(m.requestSerialize(messageOfRestInput(r, input))) as Record<string, unknown>;
    const back = restInputOfMessage(r, decoded);
    t.deepEqual(back.params, input.params, `${r.method} ${r.path} params`);
    t.deepEqual(back.query, input.query, `${r.method} ${r.path} query`);
    if (groups.some((g) => g.kind === 'body'))
      t.deepEqual(normalized(back.body), normalized(asTyped(r.body!, input.body)), `${r.method} ${r.path} body`);
    checked++;
  }
  t.true(checked >= 70, `${checked} routes`);
});

test('a request with no typed field set reads as empty; gateway-form fields are not typed fields', (t) => {
  const route = ALL_ROUTES.find((r) => r.rpc === 'HoldOption')!;
  const m = methodOf(route.service, route.rpc);
  const decoded = m.requestDeserialize(m.requestSerialize({})) as Record<string, unknown>;
  t.deepEqual(restInputOfMessage(route, decoded), { params: {}, query: {}, body: {} });
  // 0 is a value a caller may mean (and the contract refuses): it is sent, not dropped as a default.
  const zero = m.requestDeserialize(m.requestSerialize({ id: 'res_1', optionId: 'opt_1', ttlSeconds: 0 })) as Record<
    string,
    unknown
  >;
  t.deepEqual(restInputOfMessage(route, zero), {
    params: { id: 'res_1', optionId: 'opt_1' },
    query: {},
    body: { ttlSeconds: 0 },
  });
});

test('cursor-paged lists carry REST limit, cursor and nextCursor as page_size, page_token and next_page_token; other limits keep their name', (t) => {
  const route = (rpc: string) => ALL_ROUTES.find((r) => r.rpc === rpc)!;
  const v1Bookings = ALL_ROUTES.find((r) => r.method === 'GET' && r.path === '/api/v1/bookings')!;
  const providers = route('ListProviders');
  const request = messageOfRestInput(providers, { params: {}, query: { limit: '2', cursor: 'abc' }, body: undefined });
  t.like(request, { pageSize: 2, pageToken: 'abc' });
  t.false('limit' in request || 'cursor' in request);
  const m = methodOf(providers.service, providers.rpc);
  // The query-string integer is a number in the message and decimal text again in REST.
  t.deepEqual(
    restInputOfMessage(
      providers,
      m.requestDeserialize(m.requestSerialize({ pageSize: 2, pageToken: 'abc' })) as Record<string, unknown>,
    ).query,
    { limit: '2', cursor: 'abc' },
  );
  // 0 has presence: it reaches the validator (which refuses it) instead of being dropped as a default.
  t.deepEqual(
    restInputOfMessage(providers, m.requestDeserialize(m.requestSerialize({ pageSize: 0 })) as Record<string, unknown>)
      .query,
    { limit: '0' },
  );
  // Text that is not a canonical decimal reads as a number that spells differently (the gateway then sends JSON).
  t.like(messageOfRestInput(providers, { params: {}, query: { limit: '02' }, body: undefined }), { pageSize: 2 });
  t.true(
    Number.isNaN(messageOfRestInput(providers, { params: {}, query: { limit: 'ten' }, body: undefined }).pageSize),
  );
  // The answer: in a named list (ProviderList) and in an anonymous list envelope (ListOrganizations).
  const page = { data: [], total: 3, hasMore: true, nextCursor: 'next' };
  t.like(responseMessageOf(providers, page), { providerList: { nextPageToken: 'next', hasMore: true } });
  const orgs = route('ListOrganizations');
  const orgsAnswer = responseMessageOf(orgs, { data: [], hasMore: false, nextCursor: null });
  t.true('nextPageToken' in orgsAnswer && orgsAnswer.nextPageToken === undefined);
  t.deepEqual(restOfResponseMessage(orgs, { data: [], hasMore: true, nextPageToken: 'tok' }), {
    data: [],
    hasMore: true,
    nextCursor: 'tok',
  });
  // Not cursor paging: the v1 page-number envelope and the audit chain verification keep `limit` (and `page`), as numbers too.
  t.like(messageOfRestInput(v1Bookings, { params: {}, query: { page: '2', limit: '10' }, body: undefined }), {
    page: 2,
    limit: 10,
  });
  t.like(messageOfRestInput(route('VerifyAuditChain'), { params: {}, query: { limit: '100' }, body: undefined }), {
    limit: 100,
  });
  t.like(protoShapeOf(requestGroups(v1Bookings)[0]!.schema.shape.page as z.ZodType, 'input'), {
    kind: 'int64',
    decimal: true,
  });
  t.is(protoFieldNameIn(requestGroups(orgs)[0]!.schema, 'limit'), 'page_size');
  t.is(protoFieldNameIn(requestGroups(route('VerifyAuditChain'))[0]!.schema, 'limit'), 'limit');
});
