import type { Server } from 'node:http';

/** Starts `server` listening and answers the port it got (the one asked for, or the one picked for port 0). */
export async function listenHttp(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  return typeof addr === 'object' && addr ? addr.port : port;
}
