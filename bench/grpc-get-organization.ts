import { performance } from 'node:perf_hooks';
import { credentials, Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { OrganizationServiceClient } from '../src/gen/scheduling/v1/organization_service.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';

/**
 * Loads GetOrganization over gRPC, as an internal service calls it (the generated client, the key and
 * `service-organization-id` in metadata, the typed request), from `concurrency` clients on one connection; a success
 * is an OK answer. The gRPC side of the `GET /api/v2/organizations/:id` comparison (REST against gRPC, issue 23).
 */
export async function benchGrpcGetOrganization(
  o: {
    id: string;
    label: string;
    target: string;
    key: string;
    organizationId: string;
    concurrency: number;
    durationMs: number;
  },
  ctx: MeasureContext,
): Promise<ScenarioMeasurement> {
  const client = new OrganizationServiceClient(o.target, credentials.createInsecure());
  const md = new Metadata();
  md.set('authorization', `Bearer ${o.key}`);
  md.set('service-organization-id', o.organizationId);
  const get = () =>
    new Promise<number | 'fail'>((resolve) => {
      const t0 = performance.now();
      client.getOrganization(
        { id: o.organizationId },
        md,
        { deadline: Date.now() + 30_000 },
        (err: ServiceError | null) => {
          if (!err) {
            ctx.tally.record('grpc OK', false);
            return resolve(performance.now() - t0);
          }
          const serverError = err.code === GrpcStatus.INTERNAL || err.code === GrpcStatus.UNAVAILABLE;
          ctx.tally.record(`grpc ${GrpcStatus[err.code] ?? err.code}`, serverError, undefined, err.details);
          resolve('fail');
        },
      );
    });
  try {
    return await measureScenario(
      { id: o.id, label: o.label, concurrency: o.concurrency, durationMs: o.durationMs, task: get },
      ctx,
    );
  } finally {
    client.close();
  }
}
