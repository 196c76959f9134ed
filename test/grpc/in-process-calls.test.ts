import test from 'ava';
import { Metadata, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { ServiceError } from '../../src/errors/service-error.js';
import { admitCalls } from '../../src/grpc/admit-calls.js';
import { carryServiceError } from '../../src/grpc/carried-service-error.js';
import { encodeServiceError } from '../../src/grpc/error-metadata.js';
import { createInProcessCalls, type UnaryMethod } from '../../src/grpc/in-process-calls.js';
import { createCallObserver } from '../../src/grpc/observe-calls.js';
import { runForCall } from '../../src/grpc/run-for-call.js';
import { GRPC_SERVICES } from '../../src/grpc/service-registry.js';
import { createLogger } from '../../src/observability/create-logger.js';
import { createServiceMetrics, type ServiceMetrics } from '../../src/observability/service-metrics.js';

const PATH = '/scheduling.v1.OrganizationService/GetOrganization';
const definition = Object.values(GRPC_SERVICES.OrganizationService.definition).find((d) => d.path === PATH)!;

type Handler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

/** In-process calls of one method `handler` serves, through the server's observer and an admission of `limit`. */
function serve(
  handler: Handler,
  limit = 0,
): { calls: ReturnType<typeof createInProcessCalls>; metrics: ServiceMetrics } {
  const metrics = createServiceMetrics();
  const interceptors = [
    createCallObserver({ logger: createLogger({ level: 'silent' }), metrics }),
    admitCalls({ limits: { limit, maxQueue: 0, maxWaitMs: 50 }, metrics }),
  ];
  const methods = new Map<string, UnaryMethod>([[PATH, { definition, handler: handler as UnaryMethod['handler'] }]]);
  return { calls: createInProcessCalls(interceptors, methods), metrics };
}

/** How many calls of GetOrganization the observer counted with `outcome`. */
async function counted(metrics: ServiceMetrics, outcome: string): Promise<number> {
  const { values } = await metrics.rpcDuration.get();
  return (
    values.find(
      (v) =>
        v.metricName === 'scheduling_rpc_duration_seconds_count' &&
        v.labels.method === 'GetOrganization' &&
        v.labels.outcome === outcome,
    )?.value ?? 0
  );
}

const soon = () => Date.now() + 5000;

test('a call gets the handler its request and metadata as given, and answers its response and trailers; the observer counts it', async (t) => {
  const { calls, metrics } = serve((call, callback) => {
    const trailers = new Metadata();
    trailers.set('rest-header-ratelimit-limit', '60');
    const md = call.metadata.get('authorization')[0];
    callback(null, { answer: JSON.stringify({ got: call.request, md }) }, trailers);
  });
  const request = { id: 'org_1' };
  const md = new Metadata();
  md.set('authorization', 'Bearer k');
  const out = await calls.unary(PATH, request, md, { deadline: soon() });
  t.is(out.status.code, status.OK);
  t.deepEqual(out.response, { answer: JSON.stringify({ got: request, md: 'Bearer k' }) });
  t.deepEqual(out.status.metadata.get('rest-header-ratelimit-limit'), ['60']);
  t.is(await counted(metrics, 'OK'), 1);
});

test('an error answer hands over the ServiceError it was encoded from, as it was, with its trailers', async (t) => {
  const cause = new Error('the reason');
  const refusal = new ServiceError('ORGANIZATION_NOT_FOUND', undefined, { cause });
  const { calls, metrics } = serve((_call, callback) => {
    const trailers = new Metadata();
    trailers.set('rest-header-ratelimit-remaining', '59');
    callback(carryServiceError(encodeServiceError(refusal, trailers), refusal) as never, null);
  });
  const out = await calls.unary(PATH, {}, new Metadata(), { deadline: soon() });
  t.is(out.status.code, status.NOT_FOUND);
  t.is(out.error, refusal);
  t.is(out.error?.cause, cause);
  t.deepEqual(out.status.metadata.get('rest-header-ratelimit-remaining'), ['59']);
  t.is(await counted(metrics, 'ORGANIZATION_NOT_FOUND'), 1);
});

test('the deadline ends a call DEADLINE_EXCEEDED and cancels its handler (runForCall aborts)', async (t) => {
  let aborted = false;
  const { calls } = serve((call, callback) => {
    void runForCall(
      call,
      () =>
        new Promise((resolve) => {
          call.once('cancelled', () => {
            aborted = true;
            resolve(undefined);
          });
        }),
    ).then(() => callback(null, { answer: 'null' }));
  });
  const started = Date.now();
  const out = await calls.unary(PATH, {}, new Metadata(), { deadline: Date.now() + 100 });
  t.is(out.status.code, status.DEADLINE_EXCEEDED);
  t.true(Date.now() - started >= 90);
  await new Promise((r) => setTimeout(r, 20));
  t.true(aborted);
  // A deadline already past: the handler never runs.
  let ran = false;
  const late = serve((_call, callback) => {
    ran = true;
    callback(null, { answer: 'null' });
  });
  t.is(
    (await late.calls.unary(PATH, {}, new Metadata(), { deadline: Date.now() - 1 })).status.code,
    status.DEADLINE_EXCEEDED,
  );
  t.false(ran);
});

test('the caller going away ends the call CANCELLED and cancels its handler', async (t) => {
  let cancelled = false;
  const { calls } = serve((call) => {
    call.once('cancelled', () => {
      cancelled = true;
    });
  });
  const abort = new AbortController();
  const pending = calls.unary(PATH, {}, new Metadata(), { deadline: soon(), signal: abort.signal });
  setTimeout(() => abort.abort(), 20);
  t.is((await pending).status.code, status.CANCELLED);
  await new Promise((r) => setTimeout(r, 20));
  t.true(cancelled);
});

test('admission counts in-process calls like any other: a call that cannot start in time is shed, with the error it was refused with', async (t) => {
  const held: (() => void)[] = [];
  const { calls, metrics } = serve((_call, callback) => {
    held.push(() => callback(null, { answer: 'null' }));
  }, 1);
  const first = calls.unary(PATH, {}, new Metadata(), { deadline: soon() });
  const shed = await calls.unary(PATH, {}, new Metadata(), { deadline: soon() });
  t.is(shed.status.code, status.UNAVAILABLE);
  t.is(shed.error?.code, 'SERVICE_UNAVAILABLE');
  t.is(shed.error?.retryAfter, 1);
  t.is(await counted(metrics, 'SERVICE_UNAVAILABLE'), 1);
  held[0]!();
  t.is((await first).status.code, status.OK);
});

test('an unknown method is UNIMPLEMENTED, as the server answers it', async (t) => {
  const { calls } = serve((_call, callback) => callback(null, {}));
  const out = await calls.unary('/scheduling.v1.OrganizationService/Nope', {}, new Metadata(), { deadline: soon() });
  t.is(out.status.code, status.UNIMPLEMENTED);
});
