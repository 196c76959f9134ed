import test from 'ava';
import { z } from 'zod';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { schemaExample } from '../../src/contract/schema-example.js';
import { messageOfRestInput, requestGroups, responseMessageOf, restInputOfMessage, restOfResponseMessage } from '../../src/contract/typed-message.js';
import { GRPC_SERVICES } from '../../src/grpc/service-registry.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A REST value as the typed form keeps it: nulls and absent fields alike, instants to the millisecond in UTC. */
function normalized(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalized);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, normalized(x)]));
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

const example = (schema: z.ZodType, io: 'input' | 'output') => schemaExample(z.toJSONSchema(schema, { io, unrepresentable: 'any' }));

test('every route answers in its typed response message: the REST example survives encoding and decoding field for field', (t) => {
  let checked = 0;
  for (const r of ALL_ROUTES) {
    if (!r.response || r.service === 'GatewayService') continue;
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
    if (r.service === 'GatewayService') continue;
    const groups = requestGroups(r);
    const text = (o: unknown) => Object.fromEntries(Object.entries((o ?? {}) as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
    const input = {
      params: text(r.params ? example(r.params, 'input') : {}),
      query: text(r.query ? example(r.query, 'input') : {}),
      body: r.body ? (r.examples && 'request' in r.examples ? r.examples.request : example(r.body, 'input')) : undefined,
    };
    const m = methodOf(r.service, r.rpc);
    const decoded = m.requestDeserialize(m.requestSerialize(messageOfRestInput(r, input))) as Record<string, unknown>;
    const back = restInputOfMessage(r, decoded);
    t.deepEqual(back.params, input.params, `${r.method} ${r.path} params`);
    t.deepEqual(back.query, input.query, `${r.method} ${r.path} query`);
    if (groups.some((g) => g.kind === 'body')) t.deepEqual(normalized(back.body), normalized(input.body), `${r.method} ${r.path} body`);
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
  const zero = m.requestDeserialize(m.requestSerialize({ id: 'res_1', optionId: 'opt_1', ttlSeconds: 0 })) as Record<string, unknown>;
  t.deepEqual(restInputOfMessage(route, zero), { params: { id: 'res_1', optionId: 'opt_1' }, query: {}, body: { ttlSeconds: 0 } });
});
