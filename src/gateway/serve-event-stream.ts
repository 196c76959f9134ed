import type Koa from 'koa';
import { ServiceError } from '../errors/service-error.js';
import { RpcFailure } from './call-rpc.js';
import { v2ErrorBody } from './error-envelope.js';
import type { RpcStream } from './open-rpc-stream.js';

/** One Server-Sent Event: `event: <name>` and the data, one `data:` line per line of it. */
export function sseEvent(name: string, data: string): string {
  return `event: ${name}\n${data
    .split(/\r?\n/)
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

/** Options of serveEventStream. */
export interface EventStreamOptions {
  /** The event name of every message (the route's `stream.event`). */
  event: string;
  /** The JSON text of a message (the route's response shape: rest-json-of.ts). */
  render(message: Record<string, unknown>): string;
  requestId: string;
  /** How often a `: keepalive` comment is written, so proxies and clients keep an idle stream open. */
  keepAliveMs?: number;
}

/**
 * Answers a server-streaming RPC whose first message has arrived as `text/event-stream`: the first message and each
 * following one as an event, a keepalive comment every 15 s, and, if the stream fails after it started (its status
 * and headers are sent by then), one `error` event carrying the v2 error envelope before the end. Translation only:
 * the RPC decides what is sent and when.
 */
export function serveEventStream(ctx: Koa.Context, opened: RpcStream, opts: EventStreamOptions): void {
  for (const [k, v] of Object.entries(opened.headers)) ctx.set(k, v);
  ctx.status = 200;
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Accel-Buffering', 'no');
  // Written to the response directly rather than piped by Koa: a client that leaves is the normal end of a stream,
  // which Koa's pipeline would report as a premature-close error.
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(200);
  const write = (chunk: string) => {
    if (!res.destroyed && !res.writableEnded) res.write(chunk);
  };
  if (opened.first !== undefined) write(sseEvent(opts.event, opts.render(opened.first)));
  const keepAlive = setInterval(() => write(': keepalive\n\n'), opts.keepAliveMs ?? 15_000);
  void (async () => {
    try {
      for await (const message of opened.rest) write(sseEvent(opts.event, opts.render(message)));
    } catch (err) {
      const se =
        err instanceof RpcFailure
          ? err.error
          : err instanceof ServiceError
            ? err
            : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
      write(sseEvent('error', JSON.stringify(v2ErrorBody(se, opts.requestId))));
    } finally {
      clearInterval(keepAlive);
      if (!res.destroyed && !res.writableEnded) res.end();
    }
  })();
}
