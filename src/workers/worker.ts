/** A background worker loop. */
export interface Worker {
  start(): void;
  stop(): Promise<void>;
}
