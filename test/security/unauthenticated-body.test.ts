import test from 'ava';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  status,
  type Client,
  type ServiceError,
} from '@grpc/grpc-js';
import { client, request } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { decodeServiceError, errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';

// Issue 21 item 3: the gateway read and parsed a body before the key was checked, and JSON.parse of a megabyte of
// brackets holds the event loop for over a second: eight such requests with any well-formed unknown key stalled
// /healthz for 8 s. The key is now checked before the body is read, and nesting is bounded before parsing, on both
// doors. The service runs in this process, so the event loop measured here is the service's.

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

/** A well-formed key no platform holds. */
const unknownKey = () => `service_live_${randomBytes(24).toString('base64url')}`;
/** JSON text of `levels` nested arrays: 2 bytes a level. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** The longest a stall may be while the attack runs; a parse of the bodies sent here takes over a second each. */
const MAX_STALL_MS = 1000;

/** Runs `attack` while measuring the event loop's longest stall and the slowest of /healthz requests sent meanwhile. */
async function underWatch<T>(attack: () => Promise<T>): Promise<{ result: T; stallMs: number; healthzMs: number }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let done = false;
  let healthzMs = 0;
  const prober = (async () => {
    while (!done) {
      const sent = performance.now();
      const r = await fetch(`${svc.url}/healthz`);
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`/healthz answered ${r.status}`);
      healthzMs = Math.max(healthzMs, performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const result = await attack();
    const stallMs = loop.max / 1e6;
    return { result, stallMs, healthzMs };
  } finally {
    done = true;
    loop.disable();
    await prober;
  }
}

test.serial(
  '8 requests at once with an unknown key and a 1 MB body nested 500,000 levels are refused 401 without a stall; /healthz keeps answering',
  async (t) => {
    const rawBody = nested(500_000);
    const { result, stallMs, healthzMs } = await underWatch(() =>
      Promise.all(
        Array.from({ length: 8 }, () => request(svc.url, 'POST', '/api/v2/providers', { key: unknownKey(), rawBody })),
      ),
    );
    for (const r of result) {
      t.is(r.status, 401);
      t.like(r.body.error, { code: 'UNAUTHENTICATED', status: 401 });
    }
    t.log(`longest stall ${Math.round(stallMs)} ms, slowest /healthz ${Math.round(healthzMs)} ms`);
    t.true(stallMs < MAX_STALL_MS, `the event loop stalled ${Math.round(stallMs)} ms`);
    t.true(healthzMs < MAX_STALL_MS, `/healthz took ${Math.round(healthzMs)} ms`);
  },
);

/** Sends a request head announcing a body and no body, and reads the answer until the server closes the connection. */
function headWithoutBody(headers: string[]): Promise<{ status: number; head: string; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(svc.url).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 10 s: the service waited for the body'));
    }, 10_000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const answer = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body: body ? JSON.parse(body) : undefined });
    });
    socket.write(
      [
        'POST /api/v2/providers HTTP/1.1',
        'Host: localhost',
        'Content-Type: application/json',
        'Content-Length: 1000000',
        ...headers,
        '',
        '',
      ].join('\r\n'),
    );
  });
}

test.serial(
  'a missing, malformed, unknown or revoked key is refused 401 before the body is read, and the connection is closed',
  async (t) => {
    const platform = client(svc.url, svc.platformKey);
    const revoked = (await platform.post('/api/v2/api-keys', { type: 'platform_test', name: 'to revoke' })).body;
    t.is((await platform.delete(`/api/v2/api-keys/${revoked.id}`)).status, 200);
    for (const [what, headers] of [
      ['missing', []],
      ['malformed', ['Authorization: Basic dXNlcjpwYXNz']],
      ['unknown', [`Authorization: Bearer ${unknownKey()}`]],
      ['revoked', [`Authorization: Bearer ${revoked.key}`]],
    ] as const) {
      // The head announces a megabyte that never comes: an answer means the service did not wait for it.
      const r = await headWithoutBody([...headers]);
      t.is(r.status, 401, what);
      t.like(r.body.error, { code: 'UNAUTHENTICATED', status: 401 }, what);
      t.regex(r.head, /\r\nConnection: close\r\n/i, what);
    }
  },
);

test.serial(
  'a body nested more than 64 levels is refused 400 before it is parsed, with a valid key too, as the operations refuse 33',
  async (t) => {
    const { result, stallMs, healthzMs } = await underWatch(() =>
      Promise.all(
        Array.from({ length: 4 }, () =>
          request(svc.url, 'POST', '/api/v2/providers', { key: svc.platformKey, rawBody: nested(500_000) }),
        ),
      ),
    );
    for (const r of result) {
      t.is(r.status, 400);
      t.like(r.body.error, { code: 'VALIDATION_ERROR', status: 400, field: '(body)' });
      t.truthy(r.headers.get('ratelimit-remaining'), 'counted against the key like any refusal of a valid key');
    }
    t.log(`longest stall ${Math.round(stallMs)} ms, slowest /healthz ${Math.round(healthzMs)} ms`);
    t.true(stallMs < MAX_STALL_MS, `the event loop stalled ${Math.round(stallMs)} ms`);
    t.true(healthzMs < MAX_STALL_MS, `/healthz took ${Math.round(healthzMs)} ms`);

    // Refused unparsed (65 levels) or parsed (64, by the operations' 32-level bound): one answer, naming the member.
    const deep = (levels: number) => `{"displayName":"Deep","tags":${nested(levels - 1)}}`;
    const answers = [];
    for (const levels of [65, 64, 33])
      answers.push(
        (await request(svc.url, 'POST', '/api/v2/providers', { key: svc.platformKey, rawBody: deep(levels) })).body
          .error,
      );
    for (const e of answers)
      t.like(e, {
        code: 'VALIDATION_ERROR',
        field: 'tags',
        message: 'tags: must not nest arrays and objects more than 32 levels deep',
        details: [
          { field: 'tags', code: 'INVALID', message: 'must not nest arrays and objects more than 32 levels deep' },
        ],
      });
  },
);

/** The bytes of `n` as a protobuf varint. */
function varint(n: number): number[] {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return out;
}

/** Raw protobuf: a length-delimited field. */
function field(no: number, bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from([...varint((no << 3) | 2), ...varint(bytes.length)]), bytes]);
}

/**
 * A google.protobuf.Value of `levels` nested lists (Value.list_value = 6, ListValue.values = 1) as raw bytes, written
 * outside in once the size of every level is known (nesting by concatenation would copy quadratically).
 */
function nestedValue(levels: number): Buffer {
  const valueSize = [0];
  const listSize = [0];
  for (let i = 1; i <= levels; i++) {
    listSize[i] = 1 + varint(valueSize[i - 1]!).length + valueSize[i - 1]!;
    valueSize[i] = 1 + varint(listSize[i]!).length + listSize[i]!;
  }
  const out = Buffer.alloc(valueSize[levels]!);
  let at = 0;
  const put = (bytes: number[]) => {
    for (const b of bytes) out[at++] = b;
  };
  for (let i = levels; i >= 1; i--) {
    put([0x32, ...varint(listSize[i]!)]);
    put([0x0a, ...varint(valueSize[i - 1]!)]);
  }
  return out;
}

/** Calls the unary method at `path` (`/scheduling.v1.Service/Method`) with a request message given as raw bytes. */
function rawCall(path: string, message: Buffer, key: string): Promise<ServiceError | null> {
  const Raw = makeGenericClientConstructor(
    {
      call: {
        path,
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    },
    'Raw',
  );
  const raw = new Raw(svc.grpcTarget, credentials.createInsecure()) as unknown as Client & {
    call: (m: Buffer, md: Metadata, o: object, cb: (err: ServiceError | null) => void) => void;
  };
  const md = new Metadata();
  md.set('authorization', `Bearer ${key}`);
  return new Promise<ServiceError | null>((resolve) =>
    raw.call(message, md, { deadline: Date.now() + 30_000 }, (err) => resolve(err)),
  ).finally(() => raw.close());
}

const CREATE_ORGANIZATION = '/scheduling.v1.OrganizationService/CreateOrganization';
const CREATE_PROVIDER_IMPORT = '/scheduling.v1.ImportService/CreateProviderImport';

test.serial(
  'the gRPC door reads no JSON: 3.8 MB of brackets in field 4 (the former body_json) are skipped unparsed, without a stall',
  async (t) => {
    // 1,900,000 nested arrays as field 4, which carried the body as JSON text until the gateway form was removed:
    // reserved now, an unknown field the decoder steps over. The message is judged on its typed fields alone.
    const former = field(4, Buffer.from(nested(1_900_000)));
    const { result, stallMs } = await underWatch(async () => ({
      unknown: await rawCall(CREATE_ORGANIZATION, former, unknownKey()),
      valid: await rawCall(CREATE_ORGANIZATION, former, svc.platformKey),
    }));
    t.is(result.unknown?.code, status.UNAUTHENTICATED);
    t.is(errorCodeOfTrailers(result.unknown?.metadata), 'UNAUTHENTICATED');
    t.is(result.valid?.code, status.INVALID_ARGUMENT);
    t.is(errorCodeOfTrailers(result.valid?.metadata), 'VALIDATION_ERROR');
    t.is(decodeServiceError(result.valid!).field, 'externalId', 'refused for its empty typed fields, not its field 4');
    t.log(`longest stall ${Math.round(stallMs)} ms`);
    t.true(stallMs < MAX_STALL_MS, `the event loop stalled ${Math.round(stallMs)} ms`);

    // Field 4 holding a whole valid body creates nothing either: the JSON is never read.
    const body = field(4, Buffer.from(JSON.stringify({ externalId: 'former-form', name: 'Former form' })));
    const err = await rawCall(CREATE_ORGANIZATION, body, svc.platformKey);
    t.is(errorCodeOfTrailers(err?.metadata), 'VALIDATION_ERROR');
    const orgs = (await client(svc.url, svc.platformKey).get('/api/v2/organizations?limit=500')).body.data;
    t.false(
      orgs.some((o: { externalId: string }) => o.externalId === 'former-form'),
      'no organization from field 4',
    );
  },
);

test.serial(
  "the gRPC door: a google.protobuf.Value nested past the decoder's limit is a 400 without a stall, and 401 first when the key is unknown",
  async (t) => {
    // provider_row_values (22) of CreateProviderImportRequest, a repeated Value: the one request field nesting lives in
    // beside the Struct of booking metadata, nested far deeper than the decoder's 100 messages.
    for (const levels of [1_000, 5_000, 200_000]) {
      const message = field(22, nestedValue(levels));
      const { result, stallMs } = await underWatch(async () => ({
        unknown: await rawCall(CREATE_PROVIDER_IMPORT, message, unknownKey()),
        valid: await rawCall(CREATE_PROVIDER_IMPORT, message, svc.platformKey),
      }));
      t.is(result.unknown?.code, status.UNAUTHENTICATED, `${levels} levels, unknown key`);
      t.is(errorCodeOfTrailers(result.unknown?.metadata), 'UNAUTHENTICATED', `${levels} levels, unknown key`);
      t.is(result.valid?.code, status.INVALID_ARGUMENT, `${levels} levels: ${result.valid?.details}`);
      t.is(errorCodeOfTrailers(result.valid?.metadata), 'VALIDATION_ERROR', `${levels} levels`);
      t.is(decodeServiceError(result.valid!).field, 'body', `${levels} levels: undecodable`);
      t.true(stallMs < MAX_STALL_MS, `${levels} levels: the event loop stalled ${Math.round(stallMs)} ms`);
    }
    t.is((await client(svc.url, svc.platformKey).get('/api/v2/organizations')).status, 200, 'still serving');
  },
);
