import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets (seconds) from 1 ms to 10 s: the range between a cached read and a request that timed out. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The metrics of one service process, in a registry of its own (two services in one test process stay apart). */
export interface ServiceMetrics {
  registry: Registry;
  /** REST requests by method, route template and status. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** RPCs of the internal API (both doors) by service, method and outcome (an error code, or OK). */
  rpcDuration: Histogram<'service' | 'method' | 'outcome'>;
  /** Errors answered, by contract error code (a closed set). */
  errors: Counter<'code'>;
  /** Time spent in each phase of a resolution. */
  resolutionPhase: Histogram<'phase'>;
  /** Time a transaction waited for a PostgreSQL connection from the pool. */
  poolWait: Histogram;
  /** Redis round trips by operation: `ratelimit` (one per authenticated request), `ping` (the health probe, each second). */
  redisDuration: Histogram<'op'>;
  /** Webhook delivery attempts by outcome: `delivered`, `failed` (a non-2xx answer), `error` (no answer, refused address). */
  webhookAttempts: Counter<'outcome'>;
  /** REST requests the gateway sent to the internal API, by form: `typed` messages, or `json` where they cannot carry the input exactly. */
  gatewayRequestForm: Counter<'form'>;
  /** Work admitted and not yet answered, in admission units, by gate: `rest` (gateway requests), `grpc` (direct calls). */
  admissionInFlight: Gauge<'gate'>;
  /** Requests waiting in a gate's queue to start, by gate. */
  admissionWaiting: Gauge<'gate'>;
  /** How long admitted work waited in its gate's queue before it started, by gate. */
  admissionWait: Histogram<'gate'>;
  /**
   * Work refused with 503 SERVICE_UNAVAILABLE by gate (`rest`, `grpc`, `pg_pool`: pool waiters) and reason
   * (`queue_full`, `wait_budget`, `overloaded`, `cancelled`; `pool_full` for the pool).
   */
  admissionShed: Counter<'gate' | 'reason'>;
  /** Registers a gauge whose value is read when /metrics is scraped (e.g. a worker queue's length). */
  gaugeOnScrape(name: string, help: string, read: () => Promise<number> | number): void;
  /** The text exposition for GET /metrics. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Creates the metrics of a service process, with Node's default process metrics (CPU, memory, event loop, GC). */
export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'REST requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rpcDuration: new Histogram({
      name: 'rpc_duration_seconds',
      help: 'Internal API calls (REST and direct gRPC) by service, method and outcome.',
      labelNames: ['service', 'method', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    errors: new Counter({
      name: 'errors_total',
      help: 'Errors answered, by contract error code.',
      labelNames: ['code'],
      registers,
    }),
    resolutionPhase: new Histogram({
      name: 'resolution_phase_seconds',
      help: 'Time per phase of POST /api/v2/resolutions.',
      labelNames: ['phase'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    poolWait: new Histogram({
      name: 'pg_pool_wait_seconds',
      help: 'Time a transaction waited for a PostgreSQL connection.',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    redisDuration: new Histogram({
      name: 'redis_duration_seconds',
      help: 'Redis round trips of the instrumented paths, by operation.',
      labelNames: ['op'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, failed: non-2xx, error: no answer).',
      labelNames: ['outcome'],
      registers,
    }),
    admissionInFlight: new Gauge({
      name: 'admission_in_flight',
      help: 'Work admitted and not yet answered, in admission units (the cheapest kind of call 1, others by their learned service time): rest (gateway requests), grpc (direct gRPC calls).',
      labelNames: ['gate'],
      registers,
    }),
    gatewayRequestForm: new Counter({
      name: 'gateway_request_form_total',
      help: 'REST requests sent to the internal API by form: typed messages, or json where a typed message cannot carry the input exactly.',
      labelNames: ['form'],
      registers,
    }),
    admissionWaiting: new Gauge({
      name: 'admission_waiting',
      help: 'Requests waiting in an admission queue to start, by gate (rest, grpc).',
      labelNames: ['gate'],
      registers,
    }),
    admissionWait: new Histogram({
      name: 'admission_wait_seconds',
      help: 'Time admitted work waited in its admission queue before it started, by gate (rest, grpc).',
      labelNames: ['gate'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    admissionShed: new Counter({
      name: 'admission_shed_total',
      help: 'Work refused with 503 SERVICE_UNAVAILABLE by admission, by gate (rest, grpc, pg_pool) and reason (queue_full, wait_budget, overloaded, cancelled, pool_full).',
      labelNames: ['gate', 'reason'],
      registers,
    }),
    gaugeOnScrape(name, help, read) {
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          // A store that is down must not fail the whole scrape; the gauge then reports -1.
          try {
            this.set(await read());
          } catch {
            this.set(-1);
          }
        },
      });
    },
    render: () => registry.metrics(),
    get contentType() {
      return registry.contentType;
    },
  };
}
