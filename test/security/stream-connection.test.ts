import test from 'ava';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  getClientChannel,
  Metadata,
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { createGateway } from '../../src/gateway/create-gateway.js';
import { closeGrpcClients, createGrpcClients, createStreamClients } from '../../src/gateway/grpc-clients.js';
import { probeInternalApi } from '../../src/gateway/probe-internal-api.js';
import { GRPC_SERVICES } from '../../src/grpc/service-registry.js';
import { createLogger } from '../../src/observability/create-logger.js';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';
import { openEventStream, type EventStreamClient } from '../helpers/event-stream.js';

// The gateway in front of a stand-in gRPC server that allows 4 concurrent calls per connection (the service's own
// allows 1,000): 4 open streams, or 4 unary calls that take their time, take every place on one connection.
const PLACES = 4;
/** Unary calls of ListApiKeys held without an answer until released. */
const heldCalls: sendUnaryData<unknown>[] = [];
/** Open WatchActor calls. */
const openWatches = new Set<ServerWritableStream<unknown, unknown>>();
let grpcServer: Server;
let http: HttpServer;
let base: string;
let clients: ReturnType<typeof createGrpcClients>;
let streamClients: ReturnType<typeof createStreamClients>;

test.before(async () => {
  grpcServer = new Server({ 'grpc.max_concurrent_streams': PLACES });
  grpcServer.addService(GRPC_SERVICES.InspectorService.definition, {
    watchActor(call: ServerWritableStream<unknown, unknown>) {
      openWatches.add(call);
      call.on('cancelled', () => openWatches.delete(call));
      // An empty typed message (its fields at their defaults) is all the gateway needs to open the event stream.
      call.write({});
    },
  });
  grpcServer.addService(GRPC_SERVICES.ApiKeyService.definition, {
    getCaller(_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) {
      callback(null, {}, new Metadata());
    },
    listApiKeys(_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) {
      heldCalls.push(callback);
    },
  });
  new HealthImplementation({ '': 'SERVING' }).addToServer(grpcServer);
  const port = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const target = `127.0.0.1:${port}`;
  clients = createGrpcClients(target);
  streamClients = createStreamClients(target);
  const internalApi = probeInternalApi(getClientChannel(clients.GatewayService), 1000);
  const app = createGateway({
    routes: ALL_ROUTES,
    clients,
    streamClients,
    // As the service composes it (start-service.ts), without the store checks: the internal API's health, asked on
    // the connection unary calls use.
    ready: async () => {
      const state = await internalApi();
      if (state !== 'serving')
        throw new ServiceError('SERVICE_UNAVAILABLE', `The internal API: ${state}.`, { retryAfter: 1 });
      return true;
    },
    logger: createLogger({ level: 'silent' }),
    metrics: createServiceMetrics(),
    openapi: () => ({}),
    capabilities: () => ({}),
  });
  http = createServer(app.callback());
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

test.after.always(async () => {
  http?.closeAllConnections();
  http?.close();
  closeGrpcClients(clients);
  closeGrpcClients(streamClients);
  grpcServer?.forceShutdown();
});

const STREAM = '/api/v2/inspector/actors/resolution/res_standin/stream';
const KEY = { authorization: `Bearer service_test_${'k'.repeat(32)}` };

/** GET `path` on the gateway; answers the status and how long it took. */
async function timed(path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, { headers: KEY, signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

test.serial(
  'event streams have a connection of their own: with every place on it taken, unary calls and /readyz answer at once',
  async (t) => {
    const streams: EventStreamClient[] = [];
    try {
      for (let i = 0; i < PLACES; i++) {
        const s = await openEventStream(base, STREAM, KEY);
        t.is(s.status, 200);
        t.is((await s.next(2000, 'first message')).event, 'actor');
        streams.push(s);
      }
      t.is(openWatches.size, PLACES);
      // The stream connection is full: one more stream waits for a place.
      const waiting = openEventStream(base, STREAM, KEY);
      t.is(
        await Promise.race([waiting.then(() => 'opened'), new Promise((r) => setTimeout(r, 500, 'waiting'))]),
        'waiting',
      );

      const caller = await timed('/api/v2/caller');
      t.is(caller.status, 200);
      t.true(caller.ms < 1000, `GET /api/v2/caller took ${Math.round(caller.ms)} ms`);
      const ready = await timed('/readyz');
      t.is(ready.status, 200);
      t.true(ready.ms < 1000, `/readyz took ${Math.round(ready.ms)} ms`);

      // A stream that ends frees its place for the one waiting. The server ends it: a place freed by the client's
      // cancel (RST_STREAM) is not taken on Node.js 24 (24.21.0), whose http2 server still counts the reset stream
      // when the waiting one's HEADERS follow in the same read, and refuses that one with ENHANCE_YOUR_CALM (grpc-js:
      // RESOURCE_EXHAUSTED); Node.js 20 seats it. The service never fills a connection (MAX_STREAMS_PER_PROCESS is at
      // most 900 of its 1,000 places), so only this stand-in's 4 places meet that.
      const [ending] = openWatches;
      openWatches.delete(ending!);
      ending!.end();
      const next = await waiting;
      streams.push(next);
      t.is(next.status, 200);
      t.is((await next.next(2000, 'first message of the stream that waited')).event, 'actor');
      await Promise.race(streams.map((s) => s.ended));
    } finally {
      for (const s of streams) s.close();
    }
  },
);

test.serial(
  '/readyz says not ready while the connection unary calls use can take no call, and ready again once it can',
  async (t) => {
    t.is((await timed('/readyz')).status, 200);
    const held = Array.from(
      { length: PLACES },
      () =>
        new Promise<void>((resolve) =>
          (clients.ApiKeyService as unknown as { listApiKeys: Function }).listApiKeys(
            {},
            new Metadata(),
            { deadline: Date.now() + 20_000 },
            () => resolve(),
          ),
        ),
    );
    const deadline = Date.now() + 5000;
    while (heldCalls.length < PLACES && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    t.is(heldCalls.length, PLACES, 'every place of the unary connection is taken');

    const notReady = await timed('/readyz');
    t.is(notReady.status, 503);
    t.true(notReady.ms < 2500, `/readyz took ${Math.round(notReady.ms)} ms`);

    for (const callback of heldCalls.splice(0)) callback(null, {});
    await Promise.all(held);
    t.is((await timed('/readyz')).status, 200);
  },
);
