import type { Server } from 'node:http';

/**
 * Starts `server` listening and answers the port it got (the one asked for, or the one picked for port 0). `exclusive`:
 * in a node:cluster worker, a socket of its own instead of the one the primary shares among the workers.
 */
export async function listenHttp(server: Server, port: number, host: string, exclusive = false): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive }, () => resolve());
  });
  const addr = server.address();
  return typeof addr === 'object' && addr ? addr.port : port;
}
