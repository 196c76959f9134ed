import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createBenchClient, createHttpTarget } from './bench-client.js';
import { measureScenario, type ScenarioMeasurement } from './measure-scenario.js';
import type { ResponseTally } from './response-tally.js';

/** The raw node:http baseline of one run, by number of clients. */
export interface RawBaseline {
  /** One measurement per client count. */
  byClients: Map<number, ScenarioMeasurement>;
}

const SERVER = fileURLToPath(new URL('./raw-http-server.mjs', import.meta.url));

/** Starts bench/raw-http-server.mjs with this Node binary; resolves with its pid, URL and a stop function. */
export async function startRawServer(): Promise<{ pid: number; url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the raw baseline server exited (${code}) before listening`)));
  });
  return {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Loads a node:http hello-world (a child process of its own) with the bench's own load generator (undici,
 * keep-alive, closed loop) at each of `clients`: what this machine serves at most over HTTP, the yardstick
 * every row of the report is compared with.
 */
export async function measureRawBaseline(o: {
  clients: readonly number[];
  durationMs: number;
  tally: ResponseTally;
  log: (line: string) => void;
}): Promise<RawBaseline> {
  const server = await startRawServer();
  const target = createHttpTarget(server.url);
  const api = createBenchClient(target, { tally: o.tally });
  const byClients = new Map<number, ScenarioMeasurement>();
  try {
    for (const clients of o.clients) {
      o.log(`raw node:http baseline, ${clients} client(s), ${o.durationMs / 1000} s`);
      byClients.set(
        clients,
        await measureScenario(
          {
            id: `raw.c${clients}`,
            label: `raw node:http hello-world, ${clients} client(s)`,
            concurrency: clients,
            durationMs: o.durationMs,
            task: async () => {
              const r = await api.get('/');
              return r.status === 200 ? r.ms : 'fail';
            },
          },
          { tally: o.tally, processes: { service: [server.pid] } },
        ),
      );
    }
  } finally {
    await target.close();
    await server.stop();
  }
  return { byClients };
}

/** The baseline a row at `concurrency` clients is compared with: the same client count, else the nearest measured. */
export function baselineFor(raw: RawBaseline, concurrency: number): ScenarioMeasurement {
  const counts = [...raw.byClients.keys()];
  const nearest = counts.reduce(
    (best, c) =>
      Math.abs(c - concurrency) < Math.abs(best - concurrency) ||
      (Math.abs(c - concurrency) === Math.abs(best - concurrency) && c > best)
        ? c
        : best,
    counts[0]!,
  );
  return raw.byClients.get(nearest)!;
}
