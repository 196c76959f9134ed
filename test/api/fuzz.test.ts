import test from 'ava';
import http from 'node:http';
import type { TestService } from '../helpers/test-service.js';
import { storeFingerprint, fingerprintChanges } from '../helpers/store-fingerprint.js';
import { formatFuzzReport, runFuzz } from '../fuzz/run-fuzz.js';
import { judgeAnswer } from '../fuzz/judge-answer.js';
import { sendWire, type WireRequest } from '../fuzz/send-fuzz-request.js';
import { startFuzzService } from '../fuzz/start-fuzz-service.js';

/**
 * The fuzz driven by openapi.json (issue 15): every route gets a valid request built from its example with real ids, a
 * mutated one, then a fixed-seed fast-check sample of valid, mutated (wrong types, U+0000, lone surrogates, huge
 * numbers, deep nesting, long strings, bad headers and keys, invalid UTF-8), random and raw requests, one at a time.
 * No answer may be a 5xx or leave the contract's envelope, and a refused request may change nothing (test/fuzz/).
 * `npm run fuzz` runs 10,000 requests of the same kind and prints the counts.
 */

const COUNT = Number(process.env.FUZZ_TEST_REQUESTS ?? 400);
const SEED = 15;

let svc: TestService;
test.before(async () => {
  svc = await startFuzzService();
});
test.after.always(async () => {
  await svc?.stop();
});

test.serial(
  `${COUNT} fuzzed requests over every route of openapi.json: no 5xx, every error in the envelope, a refusal changes nothing`,
  async (t) => {
    t.timeout(300_000);
    const report = await runFuzz(svc, { count: COUNT, seed: SEED });
    t.log(formatFuzzReport(report, 0).split('\n').slice(0, 4).join('\n'));
    t.deepEqual(
      report.findings.map((f) => `[${f.kind}] ${f.problem}\n  request: ${f.request}\n  answer: ${f.answer}`),
      [],
      'findings (each with the request that made it)',
    );
    t.is(report.counts.internalErrors, 0, 'INTERNAL_ERROR answers counted by the service, seen by a client or not');
    t.is(report.requests, COUNT);
    const missed = Object.keys(report.byRoute).length === report.operations ? [] : ['some operation was never called'];
    t.deepEqual(missed, []);
    // The valid requests reach past validation: most operations answered one of them with a success.
    t.true(
      report.succeeded.length >= report.operations - 8,
      `valid requests succeeded on ${report.succeeded.length} of ${report.operations} operations`,
    );
  },
);

/**
 * What the fuzz found, each kept as a case (the request as it went on the wire, and the answer it must now get):
 * header bytes gRPC text metadata refuses (500, or a bare 500 for a refusal of the gateway's own), a field name that
 * is not ASCII (it ended the process), actor ids with whitespace (500), Node's bare 417 and 400 (no Host).
 */
const FOUND: { what: string; wire: (key: string) => WireRequest; status: number; code?: string; field?: string }[] = [
  // First: what its broken body would log (after the parser answered) is counted by the end of the cases.
  {
    what: 'a chunked body whose chunk size is not hex (an INTERNAL_ERROR in the log before)',
    status: 400,
    code: 'VALIDATION_ERROR',
    field: '(request)',
    wire: (key) => ({
      method: 'POST',
      target: '/api/v1/bookings',
      headers: [],
      raw: Buffer.from(
        `POST /api/v1/bookings HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer ${key}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        'latin1',
      ),
    }),
  },
  {
    what: 'Authorization with a 0xff byte',
    status: 401,
    code: 'UNAUTHENTICATED',
    wire: (key) => ({ method: 'GET', target: '/api/v2/providers', headers: [['authorization', `Bearer ${key}\xff`]] }),
  },
  {
    what: 'Service-Organization-Id with a tab',
    status: 403,
    code: 'FORBIDDEN',
    wire: (key) => ({
      method: 'GET',
      target: '/api/v2/providers',
      headers: [
        ['authorization', `Bearer ${key}`],
        ['service-organization-id', 'a\tb'],
      ],
    }),
  },
  {
    what: 'Idempotency-Key of latin1 bytes',
    status: 400,
    code: 'VALIDATION_ERROR',
    field: 'serviceId',
    wire: (key) => ({
      method: 'POST',
      target: '/api/v2/resolutions',
      headers: [
        ['authorization', `Bearer ${key}`],
        ['idempotency-key', '\xff\xfe'],
      ],
      body: Buffer.from('{}'),
    }),
  },
  {
    what: 'no route, with a Service-Organization-Id the gateway passes on (é)',
    status: 404,
    code: 'ROUTE_NOT_FOUND',
    wire: (key) => ({
      method: 'PUT',
      target: '/api/v2/providers',
      headers: [
        ['authorization', `Bearer ${key}`],
        ['service-organization-id', '\xe9'],
      ],
    }),
  },
  {
    what: 'a query key of astral characters holding U+0000 (the field name crashed the process)',
    status: 400,
    code: 'VALIDATION_ERROR',
    field: '\u{1f600}',
    wire: (key) => ({
      method: 'GET',
      target: `/api/v2/providers?${encodeURIComponent('\u{1f600}')}=%00`,
      headers: [['authorization', `Bearer ${key}`]],
    }),
  },
  {
    what: 'a resolution id with a space',
    status: 404,
    code: 'RESOLUTION_NOT_FOUND',
    wire: (key) => ({
      method: 'GET',
      target: '/api/v2/resolutions/a%20b/candidates',
      headers: [['authorization', `Bearer ${key}`]],
    }),
  },
  {
    what: 'a resolution id that is a byte-order mark, confirmed',
    status: 404,
    code: 'RESOLUTION_NOT_FOUND',
    wire: (key) => ({
      method: 'POST',
      target: '/api/v2/resolutions/%EF%BB%BF/confirm',
      headers: [
        ['authorization', `Bearer ${key}`],
        ['idempotency-key', 'found-1'],
      ],
      body: Buffer.from(JSON.stringify({ optionId: 'opt_x', customer: { name: 'Pat', email: 'pat@example.com' } })),
    }),
  },
  {
    what: 'an Expect other than 100-continue (a bare 417 before)',
    status: 200,
    wire: (key) => ({
      method: 'GET',
      target: '/api/v2/caller',
      headers: [
        ['authorization', `Bearer ${key}`],
        ['expect', 'x'],
      ],
    }),
  },
  {
    what: 'HTTP/1.1 without Host (a bare 400 before)',
    status: 400,
    code: 'VALIDATION_ERROR',
    field: 'Host',
    wire: (key) => ({
      method: 'GET',
      target: '/api/v2/caller',
      headers: [],
      raw: Buffer.from(`GET /api/v2/caller HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`),
    }),
  },
];

test.serial(
  'what the fuzz found stays fixed: each case answers in the envelope, changes nothing, and logs no INTERNAL_ERROR',
  async (t) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const internal = async () =>
      (await svc.service.metrics.errors.get()).values
        .filter((v) => v.labels.code === 'INTERNAL_ERROR')
        .reduce((n, v) => n + v.value, 0);
    const errorsBefore = await internal();
    try {
      for (const c of FOUND) {
        const w = c.wire(svc.platformKey);
        const before = await storeFingerprint(svc.service.deps);
        const a = await sendWire(new URL(svc.url), agent, w);
        const body = a.body.length ? JSON.parse(a.body.toString('utf8')) : undefined;
        t.deepEqual(judgeAnswer(w, a), [], c.what);
        t.is(a.status, c.status, `${c.what}: ${a.body.toString('utf8').slice(0, 200)}`);
        if (c.code) t.is(body?.error?.code, c.code, c.what);
        if (c.field) t.is(body?.error?.field, c.field, c.what);
        if (a.status >= 400)
          t.deepEqual(
            fingerprintChanges(before, await storeFingerprint(svc.service.deps)),
            [],
            `${c.what}: changed nothing`,
          );
      }
    } finally {
      agent.destroy();
    }
    t.is(await internal(), errorsBefore);
  },
);
