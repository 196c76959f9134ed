import type { Server, ServerResponse } from 'node:http';

/** Graceful close of an HTTP server: tracks the requests in flight so shutdown can let them finish. */
export interface HttpDrain {
  /** Requests whose response has not closed yet. */
  inFlight(): number;
  /**
   * Stops accepting connections, ends event streams, lets in-flight requests finish for at most `graceMs` (their
   * responses carry `Connection: close`; idle keep-alive connections are closed as they become idle), then closes
   * whatever is left. Resolves once the server is closed.
   */
  close(graceMs: number): Promise<void>;
}

const isEventStream = (res: ServerResponse) =>
  String(res.getHeader('content-type') ?? '').startsWith('text/event-stream');

/** Tracks `server`'s requests from now on; call before it listens. */
export function createHttpDrain(server: Server): HttpDrain {
  const active = new Set<ServerResponse>();
  let draining = false;
  server.on('request', (_req, res: ServerResponse) => {
    active.add(res);
    res.once('close', () => active.delete(res));
    // A keep-alive client is told not to send more on this connection, rather than have it closed under its next request.
    if (draining) res.setHeader('Connection', 'close');
  });
  return {
    inFlight: () => active.size,
    async close(graceMs) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const res of active) if (!res.headersSent) res.setHeader('Connection', 'close');
      const deadline = Date.now() + graceMs;
      for (;;) {
        // An event stream never ends by itself; its client reconnects (to another process, or after the restart).
        for (const res of active) if (isEventStream(res) && !res.writableEnded) res.end();
        server.closeIdleConnections();
        if (active.size === 0 || Date.now() >= deadline) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      server.closeAllConnections();
      await closed;
    },
  };
}
