import type { Config } from '../config/load-config.js';
import type { Database } from '../persistence/database.js';
import type { Redis } from '../persistence/redis-client.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { WebhookLookup } from './webhooks/webhook-target.js';

/** Explicit dependencies of the application services. */
export interface AppDeps {
  db: Database;
  redis: Redis;
  clock: () => Date;
  config: Config;
  metrics: ServiceMetrics;
  /** DNS resolution of webhook hosts (default dns.lookup); tests inject one to steer names to addresses. */
  webhookLookup?: WebhookLookup;
}
