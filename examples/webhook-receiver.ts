/**
 * A small local webhook receiver: it verifies each delivery's Standard Webhooks signature (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) with the `standardwebhooks` package and prints the events that verify.
 *
 *   WEBHOOK_SECRET=whsec_... [PORT=9000] npx tsx examples/webhook-receiver.ts
 *
 * WEBHOOK_SECRET is the `secret` that `PUT /api/v2/webhooks` answered. A verified delivery is answered 204 (delivered);
 * a bad or missing signature, or a timestamp more than five minutes off, 400 (the service retries it later).
 * `GET /` answers 200, so a script can wait until the receiver listens. Listens on 127.0.0.1 only.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** Largest body read; a delivery envelope is a few kilobytes. */
const MAX_BODY_BYTES = 1_000_000;

/** The envelope every delivery carries (docs/webhooks.md). */
interface EventEnvelope {
  id: string;
  type: string;
  attempt: number;
  organizationId: string;
  data: unknown;
}

/** Reads a request body as sent (the signature covers the exact bytes), refusing one over MAX_BODY_BYTES. */
async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The headers standardwebhooks reads, as a plain string map. */
function signatureHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** Starts the receiver; `log` gets one line per verified event, `warn` one per refused request. */
export async function startReceiver(opts: {
  secret: string;
  port: number;
  host?: string;
  log?: (line: string) => void;
  warn?: (line: string) => void;
}) {
  const webhook = new Webhook(opts.secret);
  const log = opts.log ?? console.log;
  const warn = opts.warn ?? console.error;
  const server = createServer(async (req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('webhook receiver: POST signed events here\n');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'GET, POST' }).end();
      return;
    }
    try {
      const body = await rawBody(req);
      const event = webhook.verify(body, signatureHeaders(req)) as EventEnvelope;
      log(`verified ${event.type} ${event.id} (attempt ${event.attempt}): ${JSON.stringify(event.data)}`);
      res.writeHead(204).end();
    } catch (err) {
      // Anything unverified is refused, never printed as an event.
      const why = err instanceof WebhookVerificationError ? err.message : (err as Error).message;
      warn(`refused a delivery: ${why}`);
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`${why}\n`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Entry point: reads WEBHOOK_SECRET and PORT, runs until SIGINT or SIGTERM. */
async function main() {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret?.startsWith('whsec_')) {
    console.error('set WEBHOOK_SECRET to the whsec_... secret that PUT /api/v2/webhooks answered');
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 9000);
  const receiver = await startReceiver({ secret, port });
  console.log(`webhook receiver listening on ${receiver.url}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      receiver.close().then(() => process.exit(0));
    });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
