import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got: headers, raw body (as sent, for signature checks) and the parsed JSON. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  receivedAt: number;
  /** When the answer was sent (unset while hanging): with receivedAt, the span a sender held the request open. */
  answeredAt?: number;
}

/** How the receiver answers a request: a status (default 200), or `hang` to never answer. */
export type ReceiverAnswer = { status?: number; delayMs?: number } | 'hang';

/** A real local HTTP receiver that records every request and answers as told. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  url: string;
  port: number;
  requests: ReceivedWebhook[];
  /** TCP connections accepted so far (a refused target must not even connect). */
  connections(): number;
  /** Sets how later requests are answered (per request, given the request). */
  answer(fn: (req: ReceivedWebhook) => ReceiverAnswer): void;
  /** Waits (bounded) until at least `n` requests matching `match` arrived; returns them. */
  waitFor(n: number, match?: (r: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  stop(): Promise<void>;
}

/** Starts a receiver on a free loopback port; by default it answers 200 at once. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  let decide: (req: ReceivedWebhook) => ReceiverAnswer = () => ({ status: 200 });
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const received: ReceivedWebhook = { headers: req.headers, rawBody, body, receivedAt: Date.now() };
      requests.push(received);
      const a = decide(received);
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      const send = () => {
        received.answeredAt = Date.now();
        res.statusCode = a.status ?? 200;
        res.end('ok');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  // Node's default keep-alive (5 s): a client agent keeps a socket only if the server's `Keep-Alive: timeout=N`
  // leaves more than a second, so a shorter one would make every delivery open a new connection.
  let connections = 0;
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    connections: () => connections,
    answer(fn) {
      decide = fn;
    },
    async waitFor(n, match = () => true, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = requests.filter(match);
        if (found.length >= n) return found;
        if (Date.now() > until)
          throw new Error(
            `${found.length} of ${n} webhook requests arrived within ${timeoutMs} ms (${requests.length} in all)`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
