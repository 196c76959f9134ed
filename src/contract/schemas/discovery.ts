import { z } from 'zod';
import { nonNegativeInt } from '../fields.js';

/** Answer of GET /healthz. */
export const Health = z.object({ status: z.literal('ok') });

/** Answer of GET /readyz when Redis and PostgreSQL answer. */
export const Readiness = z.object({ status: z.literal('ready') });

/** Answer of GET /capabilities.json: what this deployment offers, in brief. */
export const Capabilities = z.object({
  service: z.string(),
  version: z.string(),
  apiVersions: z.array(z.string()),
  eventApiVersion: z.string().meta({ description: 'Version of the webhook event envelope.' }),
  endpoints: z.array(
    z.object({
      method: z.string(),
      path: z.string().meta({ description: 'Route template with `:name` parameters.' }),
      summary: z.string(),
      grpc: z.string().meta({ description: 'The gRPC method behind the route, `scheduling.v1.<Service>/<Method>`.' }),
    }),
  ),
  errorCodes: z.array(z.string()),
  keyTypes: z.array(z.string()),
  limits: z.record(z.string(), nonNegativeInt()).meta({
    description:
      'Deployment limits such as `providersPerImport`, `holdTtlMaxSeconds`, `rateLimitPerMinute`, `bodyLimitBytes`.',
  }),
  grpc: z.object({ package: z.string(), reflection: z.boolean(), health: z.boolean() }),
});
