import test from 'ava';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { answerClientErrors } from '../../src/gateway/answer-client-errors.js';
import { ERROR_CATALOGUE } from '../../src/errors/error-catalogue.js';

// Issue 21 item 7a: a client too slow to send its request was answered 408 with code VALIDATION_ERROR, a code whose
// status is 400. It is 408 REQUEST_TIMEOUT (CONTRACT part 1). The gateway's server answers Node's timeouts through
// answerClientErrors; this server has the same handler with timeouts short enough for a test (Node's own are 60 s for
// the head and 300 s for the whole request, checked every 30 s).

let server: Server;
let port: number;
test.before(async () => {
  server = createServer({ headersTimeout: 500, requestTimeout: 1000, connectionsCheckingInterval: 50 }, (req, res) => {
    // As the gateway does: the body is read before anything is answered.
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  answerClientErrors(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
test.after.always(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** Sends `text`, never the rest, and reads the answer until the server closes: status, headers and JSON body. */
function sendAndStall(text: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
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

for (const [what, text] of [
  ['a request head sent too slowly', 'POST /api/v2/providers HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bea'],
  [
    'a request body sent too slowly',
    'POST /api/v2/providers HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"displayName":',
  ],
] as const) {
  test(`${what} is answered 408 REQUEST_TIMEOUT in the v2 envelope, a code whose status is 408`, async (t) => {
    const r = await sendAndStall(text);
    t.is(r.status, 408);
    t.regex(r.headers['x-service-request-id'] ?? '', /^req_[0-9a-f]{32}$/);
    t.like(r.body.error, {
      code: 'REQUEST_TIMEOUT',
      status: 408,
      recoverable: true,
      requestId: r.headers['x-service-request-id'],
    });
    t.is(ERROR_CATALOGUE[r.body.error.code as keyof typeof ERROR_CATALOGUE]?.status, 408);
  });
}
