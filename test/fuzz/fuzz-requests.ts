import fc from 'fast-check';
import type { FuzzBody, FuzzRequest, WireValue } from './fuzz-request.js';
import { validRequest, type FuzzOperation } from './fuzz-operations.js';
import { fuzzBodyBytes, fuzzHeaderText, fuzzKey, fuzzValue, fuzzWireText } from './fuzz-values.js';

/** A change to a valid request, as data (so a failing request prints what was done to it). */
type Mutation =
  | { kind: 'body.set'; at: number; value: unknown }
  | { kind: 'body.delete'; at: number }
  | { kind: 'body.add'; key: string; value: unknown }
  | { kind: 'body.root'; value: unknown }
  | { kind: 'body.bytes'; bytes: string }
  | { kind: 'body.huge'; size: number }
  | { kind: 'body.drop' }
  | { kind: 'path'; at: number; value: WireValue }
  | { kind: 'query.add'; name: string; value: WireValue }
  | { kind: 'query.known'; at: number; value: WireValue }
  | { kind: 'header'; name: string; value: unknown }
  | { kind: 'header.drop'; name: string }
  | { kind: 'method'; at: number }
  | { kind: 'route'; suffix: string };

/** Fixtures of organization F a path may name on a read (a write only ever names other organizations' ids or junk). */
const READ_REFS = [
  'org',
  'apiKey',
  'provider',
  'service',
  'calendar',
  'import',
  'resolution',
  'heldOption',
  'hold',
  'bookingV2',
  'bookingV1',
  'policy',
  'waitlist',
  'delivery',
  'event',
  'reviewProvider',
];
const FOREIGN_REFS = ['foreign.org', 'foreign.provider', 'foreign.service', 'foreign.platformOrg'];

/** A path value for `method`: junk, or an id of the wrong kind or of another organization. */
function pathValue(method: string): fc.Arbitrary<WireValue> {
  const refs = method === 'GET' ? [...READ_REFS, ...FOREIGN_REFS] : FOREIGN_REFS;
  return fc.oneof(
    { weight: 3, arbitrary: fuzzWireText },
    { weight: 1, arbitrary: fc.constantFrom(...refs).map((r): WireValue => ({ value: { $ref: r }, encoding: 'uri' })) },
  );
}

/** Authorization values: every kind of key, spelled right and wrong, and junk. */
const authValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom('platform', 'orgTest', 'orgLive', 'platformLive', 'revoked')
      .map((k) => ['Bearer ', { $ref: `key.${k}` }]),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      ['bearer ', { $ref: 'key.platform' }],
      ['Bearer  ', { $ref: 'key.platform' }],
      [{ $ref: 'key.platform' }],
      ['Bearer ', { $ref: 'key.platform' }, ' extra'],
      ['Bearer ', { $ref: 'key.platform' }, '\xff'],
      ['Bearer ', { $ref: 'key.orgTest' }, 'x'],
      ['Basic ', { $ref: 'key.platform' }],
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'Basic dXNlcjpwYXNz',
      `Bearer service_test_${'a'.repeat(31)}`,
      `Bearer service_live_${'A'.repeat(40)}`,
      `Bearer service_test_${'a'.repeat(40)}`,
      'Bearer ',
      'Bearer',
      'Digest x',
      `Bearer service_test_${'\xff'.repeat(40)}`,
      'Bearer \xc3\x28',
      `Bearer service_test_${'a'.repeat(5000)}`,
    ),
  },
  { weight: 2, arbitrary: fuzzHeaderText },
);

/** Service-Organization-Id values: F, other organizations, ids of other kinds, junk. */
const orgValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('org', 'foreign.org', 'foreign.platformOrg', 'provider').map((r) => ({ $ref: r })),
  fuzzHeaderText,
);

/** Idempotency-Key values: fresh, reused, empty, at and over 255 characters, junk. */
const idempotencyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>({ $ref: 'fresh.uuid' }, 'fuzz-fixed-key', '', 'k'.repeat(255), 'k'.repeat(256), {
    $repeat: 'k',
    times: 10_000,
  }),
  fuzzHeaderText,
);

/** A header and a value for it. */
const headerChange: fc.Arbitrary<{ name: string; value: unknown }> = fc.oneof(
  { weight: 3, arbitrary: authValue.map((value) => ({ name: 'authorization', value })) },
  { weight: 2, arbitrary: orgValue.map((value) => ({ name: 'service-organization-id', value })) },
  { weight: 2, arbitrary: idempotencyValue.map((value) => ({ name: 'idempotency-key', value })) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        '',
        '*/*',
        'application/json; charset=latin1',
        'application/merge-patch+json',
        '\xff/\xff',
      )
      .map((value) => ({ name: 'content-type', value })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('application/json', 'text/html', '*/*', 'text/event-stream', 'application/xml', '\xff', '')
      .map((value) => ({ name: 'accept', value })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          'x-request-id',
          'content-encoding',
          'expect',
          'x-http-method-override',
          'cookie',
          'origin',
          'x-forwarded-for',
          'content-language',
          'range',
        ),
        fuzzHeaderText,
      )
      .map(([name, value]) => ({ name, value })),
  },
);

/** The mutations of a request of `op` (methods other than the route's own, for `method`). */
function mutation(op: FuzzOperation, otherMethods: string[]): fc.Arbitrary<Mutation> {
  const pathNames = op.params.filter((p) => p.in === 'path').length;
  const queryNames = op.params.filter((p) => p.in === 'query').length;
  const body = op.body !== undefined;
  const options: fc.WeightedArbitrary<Mutation>[] = [
    {
      weight: body ? 12 : 0,
      arbitrary: fc.record({ kind: fc.constant('body.set' as const), at: fc.nat(), value: fuzzValue }),
    },
    { weight: body ? 4 : 0, arbitrary: fc.record({ kind: fc.constant('body.delete' as const), at: fc.nat() }) },
    {
      weight: body ? 4 : 0,
      arbitrary: fc.record({ kind: fc.constant('body.add' as const), key: fuzzKey, value: fuzzValue }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('body.root' as const), value: fuzzValue }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('body.bytes' as const), bytes: fuzzBodyBytes }) },
    {
      weight: body ? 1 : 0,
      arbitrary: fc.record({
        kind: fc.constant('body.huge' as const),
        size: fc.constantFrom(1024 * 1024 + 1, 2 * 1024 * 1024),
      }),
    },
    { weight: body ? 2 : 0, arbitrary: fc.constant({ kind: 'body.drop' as const }) },
    {
      weight: pathNames ? 8 : 0,
      arbitrary: fc.record({ kind: fc.constant('path' as const), at: fc.nat(), value: pathValue(op.method) }),
    },
    {
      weight: queryNames ? 6 : 0,
      arbitrary: fc.record({ kind: fc.constant('query.known' as const), at: fc.nat(), value: fuzzWireText }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('query.add' as const), name: fuzzKey, value: fuzzWireText }),
    },
    { weight: 10, arbitrary: headerChange.map(({ name, value }): Mutation => ({ kind: 'header', name, value })) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('authorization', 'service-organization-id', 'idempotency-key', 'content-type')
        .map((name): Mutation => ({ kind: 'header.drop', name })),
    },
    {
      weight: otherMethods.length ? 2 : 0,
      arbitrary: fc.record({ kind: fc.constant('method' as const), at: fc.nat() }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('/', '//', '/x', '/..', '%2F', '.json', '/%00', '?', '#frag')
        .map((suffix): Mutation => ({ kind: 'route', suffix })),
    },
  ];
  return fc.oneof(...options.filter((o) => o.weight > 0));
}

/** Whether a value is a marker, which mutations treat as one leaf. */
const isMarker = (v: unknown) =>
  Boolean(v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v)[0]?.startsWith('$'));

/** Paths of every value inside a body (the root excluded). */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (isMarker(v) || !v || typeof v !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  return entries.flatMap(([k, x]) => [[...at, k], ...paths(x, [...at, k])]);
}

/** Sets an own property, `__proto__` included, as data. */
function define(o: Record<string | number, unknown>, k: string | number, v: unknown) {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Marks the value at a path as removed (see `edit`). */
const REMOVE = Symbol('remove');

/** A copy of `root` with the value at `path` replaced (or removed when `value` is `REMOVE`). */
function edit(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    if (rest.length === 0 && value === REMOVE) copy.splice(Number(head), 1);
    else copy[Number(head)] = edit(copy[Number(head)], rest, value);
    return copy;
  }
  const copy: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(root as Record<string, unknown>))
    if (!(k === head && rest.length === 0 && value === REMOVE)) define(copy, k, k === head ? edit(x, rest, value) : x);
  return copy;
}

const label = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
};

/** Applies one mutation to a request. */
function apply(op: FuzzOperation, otherMethods: string[], r: FuzzRequest, m: Mutation): FuzzRequest {
  const out: FuzzRequest = { ...r, kind: 'mutated', changes: [...r.changes] };
  const json = r.body && 'json' in r.body ? r.body.json : undefined;
  const at = <T>(xs: T[], n: number) => xs[n % xs.length];
  switch (m.kind) {
    case 'body.set':
    case 'body.delete': {
      const p = at(paths(json), m.at);
      if (!p) return apply(op, otherMethods, r, { kind: 'body.root', value: m.kind === 'body.set' ? m.value : {} });
      out.body = { json: edit(json, p, m.kind === 'body.set' ? m.value : REMOVE) };
      out.changes.push(m.kind === 'body.set' ? `body.${p.join('.')}=${label(m.value)}` : `body.${p.join('.')} removed`);
      break;
    }
    case 'body.add': {
      const base = json && typeof json === 'object' && !Array.isArray(json) && !isMarker(json) ? json : {};
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(base)) define(o, k, x);
      define(o, m.key, m.value);
      out.body = { json: o };
      out.changes.push(`body.${label(m.key)} added=${label(m.value)}`);
      break;
    }
    case 'body.root':
      out.body = { json: m.value };
      out.changes.push(`body=${label(m.value)}`);
      break;
    case 'body.bytes':
      out.body = { bytes: m.bytes };
      out.changes.push(`body bytes ${label(m.bytes)}`);
      break;
    case 'body.huge':
      out.body = { huge: m.size };
      out.changes.push(`body of ${m.size} bytes`);
      break;
    case 'body.drop':
      delete out.body;
      out.changes.push('no body');
      break;
    case 'path': {
      const names = Object.keys(r.path);
      const name = at(names, m.at)!;
      out.path = { ...r.path, [name]: m.value };
      out.changes.push(`path ${name}=${label(m.value.value)}`);
      break;
    }
    case 'query.known':
    case 'query.add': {
      const known = op.params.filter((p) => p.in === 'query').map((p) => p.name);
      const name = m.kind === 'query.known' ? at(known, m.at)! : m.name;
      out.query = [...r.query.filter(([k]) => k !== name || m.kind === 'query.add'), [name, m.value]];
      out.changes.push(`query ${label(name)}=${label(m.value.value)}`);
      break;
    }
    case 'header':
      out.headers = [...r.headers.filter(([k]) => k !== m.name), [m.name, m.value]];
      out.changes.push(`${m.name}: ${label(m.value)}`);
      break;
    case 'header.drop':
      out.headers = r.headers.filter(([k]) => k !== m.name);
      out.changes.push(`no ${m.name}`);
      break;
    case 'method':
      out.method = at(otherMethods, m.at)!;
      out.changes.push(`method ${out.method}`);
      break;
    case 'route':
      out.route = `${r.route}${m.suffix}`;
      out.changes.push(`path + ${m.suffix}`);
      break;
  }
  return out;
}

/** Methods a route's path does not have (a request with one of them names no route). */
function otherMethodsOf(op: FuzzOperation, ops: FuzzOperation[]): string[] {
  const taken = new Set(ops.filter((o) => o.route === op.route).map((o) => o.method));
  return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => !taken.has(m));
}

/** A valid request of `op` changed by one to three mutations. */
export function mutatedRequest(op: FuzzOperation, ops: FuzzOperation[]): fc.Arbitrary<FuzzRequest> {
  const others = otherMethodsOf(op, ops);
  return fc
    .tuple(validRequest(op), fc.array(mutation(op, others), { minLength: 1, maxLength: 3 }))
    .map(([r, ms]) => ms.reduce((acc, m) => apply(op, others, acc, m), r));
}

/** A request of `op` with everything random: path values, query, headers and body. */
function randomRequest(op: FuzzOperation): fc.Arbitrary<FuzzRequest> {
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  const queryNames = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const body: fc.Arbitrary<FuzzBody | undefined> = fc.oneof(
    fc.constant(undefined),
    fuzzValue.map((json): FuzzBody => ({ json })),
    fc.jsonValue({ maxDepth: 4 }).map((json): FuzzBody => ({ json })),
    fuzzBodyBytes.map((bytes): FuzzBody => ({ bytes })),
  );
  return fc
    .record({
      path: fc
        .tuple(...names.map(() => pathValue(op.method)))
        .map((vs) => Object.fromEntries(names.map((n, i) => [n, vs[i]!]))),
      query: fc.array(
        fc.tuple(queryNames.length ? fc.oneof(fc.constantFrom(...queryNames), fuzzKey) : fuzzKey, fuzzWireText),
        { maxLength: 4 },
      ),
      auth: fc.option(authValue, { nil: undefined }),
      org: fc.option(orgValue, { nil: undefined }),
      idem: fc.option(idempotencyValue, { nil: undefined }),
      extra: fc.array(headerChange, { maxLength: 2 }),
      body,
    })
    .map(
      ({ path, query, auth, org, idem, extra, body: b }): FuzzRequest => ({
        kind: 'random',
        operation: op.key,
        method: op.method,
        route: op.route,
        path,
        query,
        headers: [
          ...(auth !== undefined ? [['authorization', auth] as [string, unknown]] : []),
          ...(org !== undefined ? [['service-organization-id', org] as [string, unknown]] : []),
          ...(idem !== undefined ? [['idempotency-key', idem] as [string, unknown]] : []),
          ...extra.map((h): [string, unknown] => [h.name, h.value]),
        ],
        ...(b !== undefined ? { body: b } : {}),
        changes: [],
      }),
    );
}

/**
 * Requests written byte by byte on a socket, for what an HTTP client refuses to send: U+0000 and bare LF in the
 * head, conflicting lengths, broken chunks, an over-long header, unknown methods and versions, no Host. (A body
 * shorter than its Content-Length is not among them: the server rightly waits for the rest.)
 * `{target}` is a valid path of the operation, `{auth}` the platform key, `{org}` organization F.
 */
const RAW_TEMPLATES = [
  'GET {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nX-Fuzz: a\x00b\r\nConnection: close\r\n\r\n',
  'GET {target}\x00 HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n',
  'POST {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n',
  'POST {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
  'POST {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nService-Organization-Id: {org}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n1\r\n{\r\n1\r\n}\r\n0\r\n\r\n',
  'GET {target} HTTP/1.1\nHost: fuzz\nAuthorization: Bearer {auth}\nConnection: close\n\n',
  'GET {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nX-Long: {long}\r\nConnection: close\r\n\r\n',
  'FOO {target} HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n',
  'GET {target} HTTP/9.9\r\nHost: fuzz\r\nConnection: close\r\n\r\n',
  'GET {target} HTTP/1.0\r\nAuthorization: Bearer {auth}\r\n\r\n',
  'GET {target} HTTP/1.1\r\nAuthorization: Bearer {auth}\r\nConnection: close\r\n\r\n',
  'GET {target} HTTP/1.1\r\nHost: fuzz\r\nBad Header: x\r\nConnection: close\r\n\r\n',
  'POST {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nContent-Length: -1\r\nConnection: close\r\n\r\n',
  'POST {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}',
  'GET http://fuzz{target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nConnection: close\r\n\r\n',
  'GET {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
  'GET {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nService-Organization-Id: {org}\xff\r\nConnection: close\r\n\r\n',
  'GET {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer \xc3\x28{auth}\r\nConnection: close\r\n\r\n',
  'POST {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\nService-Organization-Id: {org}\r\nContent-Type: application/json\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{"a":"\xff"}',
  ' {target} HTTP/1.1\r\n\r\n',
  'GET {target} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer {auth}\r\n Folded: continuation\r\nConnection: close\r\n\r\n',
];

/** A raw request of `op`: one of the templates around a valid path of it. */
function rawRequest(op: FuzzOperation): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(validRequest(op), fc.constantFrom(...RAW_TEMPLATES))
    .map(([r, raw]) => ({ ...r, kind: 'raw' as const, raw, headers: [], changes: [] }));
}

/** Requests of every kind over all operations: 20% valid, 55% mutated, 20% random, 5% raw bytes. */
export function fuzzRequest(ops: FuzzOperation[]): fc.Arbitrary<FuzzRequest> {
  const op = fc.constantFrom(...ops);
  return fc.oneof(
    { weight: 20, arbitrary: op.chain((o) => validRequest(o)) },
    { weight: 55, arbitrary: op.chain((o) => mutatedRequest(o, ops)) },
    { weight: 20, arbitrary: op.chain((o) => randomRequest(o)) },
    { weight: 5, arbitrary: op.chain((o) => rawRequest(o)) },
  );
}

/** One valid and one mutated request of every operation, so each route is called whatever the sample draws. */
export function sweepRequests(ops: FuzzOperation[]): fc.Arbitrary<FuzzRequest[]> {
  return fc.tuple(...ops.map((o) => fc.tuple(validRequest(o), mutatedRequest(o, ops)))).map((pairs) => pairs.flat());
}
