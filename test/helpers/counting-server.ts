import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real local HTTP server that counts every TCP connection and request it gets. */
export interface CountingServer {
  port: number;
  /** TCP connections accepted so far, on every address it listens on (a refused target must not even connect). */
  connections(): number;
  /** Request paths served so far. */
  paths: string[];
  stop(): Promise<void>;
}

/**
 * Starts a server on `host` (a loopback address) and a free port; with `alsoIpv6Loopback` it listens on [::1] at the
 * same port too when this machine has it. `handle` answers each request.
 */
export async function startCountingServer(opts: {
  host: string;
  alsoIpv6Loopback?: boolean;
  handle: (req: IncomingMessage, res: ServerResponse) => void;
}): Promise<CountingServer> {
  let connections = 0;
  const paths: string[] = [];
  const servers: Server[] = [];
  const open = (host: string, port: number) =>
    new Promise<Server | undefined>((resolve) => {
      const server = createServer((req, res) => {
        paths.push(req.url ?? '');
        opts.handle(req, res);
      });
      server.on('connection', () => connections++);
      server.once('error', () => resolve(undefined));
      server.listen(port, host, () => resolve(server));
    });
  const first = await open(opts.host, 0);
  if (!first) throw new Error(`cannot listen on ${opts.host}`);
  servers.push(first);
  const port = (first.address() as AddressInfo).port;
  if (opts.alsoIpv6Loopback) {
    const v6 = await open('::1', port);
    if (v6) servers.push(v6);
  }
  return {
    port,
    connections: () => connections,
    paths,
    async stop() {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
    },
  };
}
