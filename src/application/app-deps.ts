import type { Config } from '../config/load-config.js';
import type { Database } from '../persistence/database.js';
import type { Redis } from '../persistence/redis-client.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { Tracing } from '../observability/create-tracing.js';
import type { OutboundLookup } from './outbound/guarded-lookup.js';

/** Explicit dependencies of the application services. */
export interface AppDeps {
  db: Database;
  redis: Redis;
  clock: () => Date;
  config: Config;
  metrics: ServiceMetrics;
  /** DNS resolution of outbound hosts (webhooks, calendar feeds; default dns.lookup); tests inject one to steer names. */
  outboundLookup?: OutboundLookup;
  /** OpenTelemetry tracing, when on (docs/tracing.md): worker jobs get spans, outbound webhooks carry traceparent. */
  tracing?: Tracing;
}
