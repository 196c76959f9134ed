/** What a worker process tells the primary once it serves (SERVICE_PROCESSES > 1). */
export interface WorkerReadyMessage {
  kind: 'service-worker-ready';
  httpPort: number | undefined;
  grpcPort: number | undefined;
  metricsPort: number | undefined;
  /** The platform key the worker that bootstrapped the platform generated (sent once, over the local IPC channel). */
  generatedKey: string | undefined;
}

/** Answers whether an IPC message from a worker is its ready message. */
export function isWorkerReadyMessage(m: unknown): m is WorkerReadyMessage {
  return typeof m === 'object' && m !== null && (m as { kind?: unknown }).kind === 'service-worker-ready';
}
