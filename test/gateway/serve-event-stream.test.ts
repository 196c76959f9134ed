import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { RpcFailure } from '../../src/gateway/call-rpc.js';
import { serveEventStream, sseEvent } from '../../src/gateway/serve-event-stream.js';
import { ServiceError } from '../../src/errors/service-error.js';

test('sseEvent frames one event, one data line per line of its data', (t) => {
  t.is(sseEvent('actor', '{"a":1}'), 'event: actor\ndata: {"a":1}\n\n');
  t.is(sseEvent('x', 'one\ntwo\r\nthree'), 'event: x\ndata: one\ndata: two\ndata: three\n\n');
});

/** Serves `messages` (then `failWith`, or an idle wait until the client leaves) through serveEventStream on a private port. */
async function serve(messages: Record<string, unknown>[], opts: { failWith?: ServiceError; keepAliveMs: number }) {
  let ended = false;
  const app = new Koa();
  app.use(async (ctx) => {
    const closed = new Promise<void>((resolve) => ctx.res.once('close', () => resolve()));
    serveEventStream(
      ctx,
      {
        headers: { 'ratelimit-limit': '10' },
        first: messages[0],
        rest: {
          async *[Symbol.asyncIterator]() {
            try {
              for (const m of messages.slice(1)) yield m;
              if (opts.failWith) throw new RpcFailure(opts.failWith, {});
              await closed;
            } finally {
              ended = true;
            }
          },
        },
      },
      { event: 'actor', requestId: 'req_test', keepAliveMs: opts.keepAliveMs, render: (m) => JSON.stringify(m) },
    );
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    ended: () => ended,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Reads the response text until `done(text)` holds or `withinMs` pass. */
async function readUntil(res: Response, done: (text: string) => boolean, withinMs: number): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = Date.now() + withinMs;
  let text = '';
  while (!done(text) && Date.now() < deadline) {
    const next = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value: undefined }>((r) =>
        setTimeout(() => r({ done: true, value: undefined }), deadline - Date.now()),
      ),
    ]);
    if (next.done) break;
    text += next.value;
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

test('headers, events, keepalive comments, and the end of the pump when the client leaves', async (t) => {
  const s = await serve([{ n: 1 }, { n: 2 }], { keepAliveMs: 30 });
  try {
    const abort = new AbortController();
    const res = await fetch(s.url, { signal: abort.signal });
    t.is(res.status, 200);
    t.is(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    t.is(res.headers.get('cache-control'), 'no-cache');
    t.is(res.headers.get('x-accel-buffering'), 'no');
    t.is(res.headers.get('ratelimit-limit'), '10');
    const text = await readUntil(res, (x) => x.includes(': keepalive\n\n'), 2000);
    t.true(text.startsWith('event: actor\ndata: {"n":1}\n\nevent: actor\ndata: {"n":2}\n\n'), text);
    t.true(text.includes(': keepalive\n\n'), text);
    abort.abort();
    const deadline = Date.now() + 2000;
    while (!s.ended() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    t.true(s.ended(), 'the stream of messages is closed once the client leaves');
  } finally {
    await s.close();
  }
});

test('a failure after the stream started is one error event with the v2 envelope, then the end', async (t) => {
  const s = await serve([{ n: 1 }], { keepAliveMs: 60_000, failWith: new ServiceError('BOOKING_NOT_FOUND', 'gone') });
  try {
    const text = await (await fetch(s.url)).text();
    const [first, second, ...rest] = text.split('\n\n');
    t.is(first, 'event: actor\ndata: {"n":1}');
    t.true(second!.startsWith('event: error\ndata: '));
    t.like(JSON.parse(second!.slice('event: error\ndata: '.length)).error, {
      code: 'BOOKING_NOT_FOUND',
      status: 404,
      requestId: 'req_test',
    });
    t.deepEqual(rest, ['']);
  } finally {
    await s.close();
  }
});
