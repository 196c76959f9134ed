import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config/load-config.js';
import type { ServiceLogger } from '../observability/create-logger.js';
import { guardWorkerHandoffs } from './guard-worker-handoffs.js';
import { createLifetime, DRAIN_GRACE_MS } from './lifetime.js';
import { startPrivateStores } from './start-private-stores.js';
import { isWorkerReadyMessage, type WorkerReadyMessage } from './worker-ready-message.js';
import { WORKER_STABLE_MS, workerRestartDelayMs } from './worker-restart-delay.js';

/**
 * How long a stop lets the workers drain before they are killed: a worker's gateway and its gRPC server each get
 * DRAIN_GRACE_MS, one after the other, and 2 s are left for the rest of its stop (22 s in all).
 */
export const WORKER_STOP_LIMIT_MS = 2 * DRAIN_GRACE_MS + 2_000;

/** The primary of SERVICE_PROCESSES > 1: the private stores and the worker processes it forked. */
export interface ServicePrimary {
  /** What the first worker reported once it served (its ports, and the platform key when it generated one). */
  ready: WorkerReadyMessage;
  /** The pids of the workers running now. */
  workerPids(): number[];
  /** The METRICS_PORT listener of each worker, in worker order (empty without METRICS_PORT). */
  metricsPorts(): number[];
  /**
   * Graceful stop: no more restarts, SIGTERM to every worker (each drains as a single process does), SIGKILL to any
   * still running after WORKER_STOP_LIMIT_MS, then the private stores stop.
   */
  stop(): Promise<void>;
}

/** One worker position: the process filling it now, and how often it died in a row. */
interface Slot {
  index: number;
  worker: Worker | undefined;
  readyAt: number | undefined;
  deathsInARow: number;
  restart: NodeJS.Timeout | undefined;
  /** The METRICS_PORT listener of the process filling the slot (a port per worker), once it is ready. */
  metricsPort: number | undefined;
  /** Settles once the process filling the slot now has exited (at once when none does). */
  exited: Promise<void>;
}

/**
 * Starts the primary of a multi-process service: the private stores (when REDIS_URL / DATABASE_URL are not given),
 * then `config.serviceProcesses` workers forked with node:cluster. The workers run `npm start`'s entry point with the
 * stores' URLs and share PORT and GRPC_PORT through the primary's listening sockets (round robin over connections).
 * The first worker migrates the schema and bootstraps the platform before the others start, so they find both done.
 * A worker that dies after start-up is forked again after a back-off (workerRestartDelayMs); one that dies during
 * start-up fails the start.
 */
export async function startServicePrimary(config: Config, deps: { logger: ServiceLogger }): Promise<ServicePrimary> {
  const { logger } = deps;
  const lifetime = createLifetime((msg, extra) => logger.error(extra ?? {}, msg));
  lifetime.defer(() => logger.flush());
  let stopping = false;
  let started = false;
  const slots: Slot[] = Array.from({ length: config.serviceProcesses }, (_, index) => ({
    index,
    worker: undefined,
    readyAt: undefined,
    deathsInARow: 0,
    restart: undefined,
    metricsPort: undefined,
    exited: Promise.resolve(),
  }));

  const stopWorkers = async () => {
    stopping = true;
    for (const slot of slots) clearTimeout(slot.restart);
    // Not worker.kill(): it disconnects first, which closes the worker's listeners before its own graceful drain.
    for (const slot of slots) slot.worker?.process.kill('SIGTERM');
    const all = Promise.all(slots.map((slot) => slot.exited));
    const limit = setTimeout(() => {
      for (const slot of slots) {
        if (!slot.worker) continue;
        logger.error({ worker: slot.index, pid: slot.worker.process.pid }, 'worker did not stop in time; killing it');
        slot.worker.process.kill('SIGKILL');
      }
    }, WORKER_STOP_LIMIT_MS);
    await all;
    clearTimeout(limit);
  };

  /** Forks the worker of `slot`; resolves with its ready message, rejects when it exits before it is ready. */
  const fork = (slot: Slot, urls: { redisUrl: string; databaseUrl: string }) =>
    new Promise<WorkerReadyMessage>((resolve, reject) => {
      const worker = cluster.fork({
        REDIS_URL: urls.redisUrl,
        DATABASE_URL: urls.databaseUrl,
        SERVICE_WORKER_INDEX: String(slot.index),
      });
      guardWorkerHandoffs(worker, (err) =>
        logger.warn({ worker: slot.index, pid: worker.process.pid, err: err.message }, 'worker process channel failed'),
      );
      slot.worker = worker;
      slot.readyAt = undefined;
      worker.on('message', (m: unknown) => {
        if (!isWorkerReadyMessage(m)) return;
        slot.readyAt = Date.now();
        slot.metricsPort = m.metricsPort;
        resolve(m);
      });
      let exited!: () => void;
      slot.exited = new Promise<void>((r) => (exited = r));
      worker.on('exit', (code, signal) => {
        exited();
        if (slot.worker === worker) slot.worker = undefined;
        const how = signal ? `signal ${signal}` : `code ${code}`;
        if (slot.readyAt === undefined) reject(new Error(`worker ${slot.index} exited during start-up (${how})`));
        // A worker that never served during the service's start fails the start instead (no fork loop at start-up).
        if (stopping || (!started && slot.readyAt === undefined)) return;
        const stable = slot.readyAt !== undefined && Date.now() - slot.readyAt >= WORKER_STABLE_MS;
        slot.deathsInARow = stable ? 1 : slot.deathsInARow + 1;
        const delay = workerRestartDelayMs(slot.deathsInARow);
        logger.warn(
          { worker: slot.index, pid: worker.process.pid, exit: how, restartInMs: delay },
          'worker process exited; forking it again',
        );
        slot.restart = setTimeout(() => {
          slot.restart = undefined;
          if (stopping) return;
          fork(slot, urls).then(
            (m) =>
              logger.info(
                { worker: slot.index, pid: slot.worker?.process.pid, metricsPort: m.metricsPort },
                'worker process serving again',
              ),
            () => undefined,
          );
        }, delay);
      });
    });

  try {
    const urls = await startPrivateStores(config, lifetime, (level, msg, extra) => logger[level](extra ?? {}, msg));
    // Stops run last registered first: the workers stop (drained) before the private stores they use.
    lifetime.defer(stopWorkers);
    const [first, ...rest] = slots;
    const ready = await fork(first!, urls);
    await Promise.all(rest.map((slot) => fork(slot, urls)));
    started = true;
    return {
      ready,
      workerPids: () => slots.flatMap((s) => (s.worker?.process.pid !== undefined ? [s.worker.process.pid] : [])),
      metricsPorts: () => slots.flatMap((s) => (s.metricsPort !== undefined ? [s.metricsPort] : [])),
      stop: () => lifetime.stop(),
    };
  } catch (err) {
    await lifetime.stop();
    throw err;
  }
}
