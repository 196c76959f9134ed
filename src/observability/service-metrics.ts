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
  /** REST requests the gateway sent to the internal API, by form: always `typed` (the proto has no other request form; kept for dashboards, docs/internal-api.md). */
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
  /**
   * Registers a gauge read when /metrics is scraped. `read` must answer from memory (a pool's counters, a sampler's last
   * values): a scrape does no store round trip, so scrapers cannot take connections from the API.
   */
  gaugeOnScrape(name: string, help: string, read: () => number, opts?: { anonymous?: boolean }): void;
  /** Registers a gauge its owner sets (e.g. the queue sampler after each pass); in the full exposition only. */
  gauge(name: string, help: string): Gauge;
  /**
   * The text exposition: `full` for a caller holding METRICS_TOKEN (or on METRICS_PORT), `anonymous` for anyone else:
   * Node's process metrics and the service's own load and store health (admission, pool, Redis), never what tells
   * about callers' requests (routes, statuses, error codes, RPC outcomes, resolution phases, webhooks, queues).
   */
  render(scope: MetricsScope): Promise<string>;
  readonly contentType: string;
}

/** Which exposition a caller of /metrics gets (see ServiceMetrics.render). */
export type MetricsScope = 'full' | 'anonymous';

/** The prefix of the service's own metric names; Node's process_* and nodejs_* metrics keep their standard names. */
export const METRIC_PREFIX = 'scheduling_';

/** First line of the anonymous exposition: a comment (ignored by Prometheus) that says how to get the rest. */
const ANONYMOUS_NOTE =
  '# Reduced exposition for anonymous callers: send Authorization: Bearer <METRICS_TOKEN>, or scrape METRICS_PORT, for all metrics.\n';

/** Creates the metrics of a service process, with Node's default process metrics (CPU, memory, event loop, GC). */
export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // The anonymous exposition is a second registry holding a subset of the same metric objects.
  const anonymous = new Registry();
  for (const { name } of registry.getMetricsAsArray()) anonymous.registerMetric(registry.getSingleMetric(name)!);
  const registers = [registry];
  const everywhere = [registry, anonymous];
  const prefixed = (name: string) => {
    if (!name.startsWith(METRIC_PREFIX)) throw new Error(`metric ${name} must start with ${METRIC_PREFIX}`);
    return name;
  };
  // Which OS process answered a scrape: with SERVICE_PROCESSES > 1 each worker keeps metrics of its own.
  new Gauge({
    name: 'scheduling_process_info',
    help: 'Always 1; its pid label is the OS process that answered this scrape (one per worker with SERVICE_PROCESSES > 1).',
    labelNames: ['pid'],
    registers,
  }).set({ pid: String(process.pid) }, 1);
  return {
    registry,
    httpDuration: new Histogram({
      name: 'scheduling_http_request_duration_seconds',
      help: 'REST requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rpcDuration: new Histogram({
      name: 'scheduling_rpc_duration_seconds',
      help: 'Internal API calls (REST and direct gRPC) by service, method and outcome.',
      labelNames: ['service', 'method', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    errors: new Counter({
      name: 'scheduling_errors_total',
      help: 'Errors answered, by contract error code.',
      labelNames: ['code'],
      registers,
    }),
    resolutionPhase: new Histogram({
      name: 'scheduling_resolution_phase_seconds',
      help: 'Time per phase of POST /api/v2/resolutions.',
      labelNames: ['phase'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    poolWait: new Histogram({
      name: 'scheduling_pg_pool_wait_seconds',
      help: 'Time a transaction waited for a PostgreSQL connection.',
      buckets: LATENCY_BUCKETS,
      registers: everywhere,
    }),
    redisDuration: new Histogram({
      name: 'scheduling_redis_duration_seconds',
      help: 'Redis round trips of the instrumented paths, by operation.',
      labelNames: ['op'],
      buckets: LATENCY_BUCKETS,
      registers: everywhere,
    }),
    webhookAttempts: new Counter({
      name: 'scheduling_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, failed: non-2xx, error: no answer).',
      labelNames: ['outcome'],
      registers,
    }),
    admissionInFlight: new Gauge({
      name: 'scheduling_admission_in_flight',
      help: 'Work admitted and not yet answered, in admission units (the cheapest kind of call 1, others by their learned service time): rest (gateway requests), grpc (direct gRPC calls).',
      labelNames: ['gate'],
      registers: everywhere,
    }),
    gatewayRequestForm: new Counter({
      name: 'scheduling_gateway_request_form_total',
      help: 'REST requests sent to the internal API by form: typed (every request; the proto has no other request form).',
      labelNames: ['form'],
      registers,
    }),
    admissionWaiting: new Gauge({
      name: 'scheduling_admission_waiting',
      help: 'Requests waiting in an admission queue to start, by gate (rest, grpc).',
      labelNames: ['gate'],
      registers: everywhere,
    }),
    admissionWait: new Histogram({
      name: 'scheduling_admission_wait_seconds',
      help: 'Time admitted work waited in its admission queue before it started, by gate (rest, grpc).',
      labelNames: ['gate'],
      buckets: LATENCY_BUCKETS,
      registers: everywhere,
    }),
    admissionShed: new Counter({
      name: 'scheduling_admission_shed_total',
      help: 'Work refused with 503 SERVICE_UNAVAILABLE by admission, by gate (rest, grpc, pg_pool) and reason (queue_full, wait_budget, overloaded, cancelled, pool_full).',
      labelNames: ['gate', 'reason'],
      registers: everywhere,
    }),
    gaugeOnScrape(name, help, read, opts = {}) {
      new Gauge({
        name: prefixed(name),
        help,
        registers: opts.anonymous === true ? everywhere : registers,
        collect() {
          this.set(read());
        },
      });
    },
    gauge: (name, help) => new Gauge({ name: prefixed(name), help, registers }),
    render: async (scope) => (scope === 'full' ? registry.metrics() : ANONYMOUS_NOTE + (await anonymous.metrics())),
    get contentType() {
      return registry.contentType;
    },
  };
}
