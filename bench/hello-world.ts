import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { measureClosedLoop, type ThroughputResult } from './closed-loop.js';

/** Baseline figures of a Koa hello-world endpoint. */
export type HelloWorldResult = ThroughputResult;

/** Serves a Koa hello-world on a free 127.0.0.1 port and loads it from `concurrency` keep-alive clients. */
export async function benchHelloWorld(opts: { concurrency: number; durationMs: number }): Promise<HelloWorldResult> {
  const app = new Koa();
  app.use((ctx) => { ctx.body = 'Hello World'; });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const task = async () => {
      const t0 = performance.now();
      const res = await fetch(url);
      await res.text();
      return res.status === 200 ? performance.now() - t0 : 'fail' as const;
    };
    return await measureClosedLoop({ concurrency: opts.concurrency, durationMs: opts.durationMs, task });
  } finally {
    await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
  }
}
