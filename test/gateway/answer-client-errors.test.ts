import test from 'ava';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { answerClientErrors } from '../../src/gateway/answer-client-errors.js';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';

let server: Server;
let port: number;
const metrics = createServiceMetrics();
test.before(async () => {
  server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  answerClientErrors(server, { metrics });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
test.after.always(async () => {
  await new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
});

/** Sends raw bytes and reads the answer until the server closes the connection: status, headers and JSON body. */
function raw(text: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    // The server may close while the client still writes the rest of an over-long head: what it answered is read already.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = Number(statusLine.split(' ')[1]);
      if (!status) return reject(new Error(`no answer: ${JSON.stringify(answer.slice(0, 200))}`));
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status, headers, body: body ? JSON.parse(body) : undefined });
    });
    socket.write(text);
  });
}

test('a request line over 16 KB gets 431 in the v2 envelope with a request id', async (t) => {
  const r = await raw(`GET /api/v2/providers/${'x'.repeat(17_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  t.is(r.status, 431);
  t.regex(r.headers['x-service-request-id'] ?? '', /^req_[0-9a-f]{32}$/);
  t.is(r.headers['content-type'], 'application/json; charset=utf-8');
  t.like(r.body.error, {
    code: 'VALIDATION_ERROR',
    status: 431,
    field: '(headers)',
    recoverable: false,
    requestId: r.headers['x-service-request-id'],
  });
  t.regex(r.body.error.message, /16 KB/);
});

test('headers over 16 KB get the same 431', async (t) => {
  const r = await raw(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`);
  t.is(r.status, 431);
  t.like(r.body.error, { code: 'VALIDATION_ERROR', status: 431, field: '(headers)' });
  t.is(r.body.error.requestId, r.headers['x-service-request-id']);
});

test('malformed HTTP gets 400 in the envelope; a well-formed request is untouched', async (t) => {
  const bad = await raw('NOT A REQUEST\r\n\r\n');
  t.is(bad.status, 400);
  t.like(bad.body.error, { code: 'VALIDATION_ERROR', status: 400, field: '(request)' });
  t.truthy(bad.headers['x-service-request-id']);
  const ok = await raw('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  t.is(ok.status, 200);
  t.deepEqual(ok.body, { ok: true });
  t.regex(await metrics.render('full'), /scheduling_errors_total\{code="VALIDATION_ERROR"\} [1-9]/);
});

test('a malformed request on a kept-alive connection that answered before gets the envelope too', async (t) => {
  const answers = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let sent = false;
    socket.on('data', (c) => {
      text += c.toString('utf8');
      // The first answer is whole: the next request on the same connection is malformed.
      if (!sent && text.includes('{"ok":true}') && (sent = true))
        socket.write('GET /x HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => (text ? resolve(text) : reject(new Error('no answer'))));
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
  });
  const second = answers.slice(answers.indexOf('HTTP/1.1 400'));
  t.regex(second, /^HTTP\/1\.1 400 /, answers);
  t.regex(second, /X-Service-Request-Id: req_[0-9a-f]{32}/);
  t.like(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)).error, {
    code: 'VALIDATION_ERROR',
    status: 400,
    field: '(request)',
  });
});

test('an Expect other than 100-continue is ignored: the request is served, not refused with a bare 417', async (t) => {
  const r = await raw('GET / HTTP/1.1\r\nHost: localhost\r\nExpect: something-else\r\nConnection: close\r\n\r\n');
  t.is(r.status, 200);
  t.deepEqual(r.body, { ok: true });
});

test('an HTTP/1.1 request without Host reaches the request handler (the gateway refuses it in the envelope)', async (t) => {
  const r = await raw('GET / HTTP/1.1\r\nConnection: close\r\n\r\n');
  t.is(r.status, 200, "Node's own bare 400 is off");
});
