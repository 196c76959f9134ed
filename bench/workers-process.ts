import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { benchServiceEnv } from './bench-service.js';
import type { BenchStores } from './bench-stores.js';
import { processTreeCpuMs } from './process-cpu.js';
import { serviceCommand } from '../test/helpers/service-process.js';

/** A workers-only service process the bench started. */
export interface WorkersProcess {
  pid: number;
  /** CPU (ms) it used so far. */
  cpuMs(): number;
  /** SIGTERM, and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts the `npm start` command with SERVICE_ROLES=workers (imports, timers, outbox, webhooks, e-mail, audit drain,
 * sweepers; it serves no port) on the bench stores, and resolves once it printed its ready banner.
 */
export async function startWorkersProcess(o: {
  stores: BenchStores;
  platformKey: string;
  name: string;
  timeoutMs?: number;
}): Promise<WorkersProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['REDIS_URL', 'DATABASE_URL', 'PORT', 'GRPC_PORT', 'GRPC_TARGET', 'SERVICE_ROLES']) delete env[k];
  Object.assign(env, benchServiceEnv(), {
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: o.stores.databaseUrl,
    REDIS_URL: o.stores.redisUrl,
    SERVICE_BOOTSTRAP_PLATFORM_KEY: o.platformKey,
    DATA_DIR: join(o.stores.dir, o.name),
    SERVICE_ROLES: 'workers',
  });
  const [command, ...args] = serviceCommand();
  const child = spawn(command!, args, { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + (o.timeoutMs ?? 180_000);
  while (!/scheduling service ready/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the workers-only process did not start:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { pid: child.pid!, cpuMs: () => processTreeCpuMs(child.pid!), stop };
}
