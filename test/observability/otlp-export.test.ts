import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/observability/create-logger.js';
import { startTestService, startTestStores, type TestStores } from '../helpers/test-service.js';

let stores: TestStores;
test.before(async () => {
  stores = await startTestStores();
});
test.after.always(async () => {
  await stores?.stop();
});

/** A logger writing its JSON lines into memory. */
function memoryLogger() {
  const lines: Record<string, any>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

/** A stand-in OpenTelemetry collector on loopback: records every OTLP/HTTP request and answers 200. */
async function startCollector() {
  const requests: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

test('OTEL_* settings: tracing only with an endpoint, the traces path appended to the base one', (t) => {
  t.is(loadConfig({}).tracing, undefined);
  t.is(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracing, undefined);
  t.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing, {
    endpoint: 'http://collector:4318/v1/traces',
    serviceName: 'scheduling',
    sampler: 'parentbased_always_on',
    samplerRatio: 1,
  });
  t.like(
    loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp/spans',
      OTEL_SERVICE_NAME: 'scheduling-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing,
    {
      endpoint: 'https://traces.example.com/otlp/spans',
      serviceName: 'scheduling-eu',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    },
  );
  t.is(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing,
    undefined,
  );
  const refusals: [Record<string, string>, RegExp][] = [
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://c:4317' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG must/],
  ];
  for (const [env, message] of refusals) t.throws(() => loadConfig(env), { message }, JSON.stringify(env));
});

test.serial('with OTEL_EXPORTER_OTLP_ENDPOINT the spans of a request reach the collector over OTLP/HTTP', async (t) => {
  const collector = await startCollector();
  const mem = memoryLogger();
  const svc = await startTestService({
    stores,
    logger: mem.logger,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'scheduling-otlp-test' },
  });
  let stopped = false;
  try {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${svc.url}/api/v2/organizations`, {
      headers: {
        authorization: `Bearer ${svc.platformKey}`,
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
    });
    t.is(res.status, 200);
    // A stop exports what the batch still holds.
    await svc.stop();
    stopped = true;
    const exported = collector.requests.filter((r) => r.path === '/v1/traces');
    t.true(exported.length >= 1, `requests: ${collector.requests.map((r) => r.path).join(', ')}`);
    t.regex(String(exported[0]!.headers['content-type']), /^application\/json/);
    const all = exported.map((r) => r.body).join('\n');
    t.true(all.includes(traceId), 'the request trace is exported');
    t.true(all.includes('scheduling-otlp-test'), 'with the service name');
    t.true(all.includes('ListOrganizations'), 'its RPC span too');
    t.true(mem.lines.some((l) => l.door === 'rest' && l.traceId === traceId));
  } finally {
    if (!stopped) await svc.stop();
    await collector.stop();
  }
});

test.serial('without an endpoint nothing is traced, yet a caller traceparent trace id is logged', async (t) => {
  const mem = memoryLogger();
  const svc = await startTestService({ stores, logger: mem.logger });
  try {
    t.is(svc.config.tracing, undefined);
    t.is(svc.service.deps.tracing, undefined);
    const traceId = randomBytes(16).toString('hex');
    const headers = { authorization: `Bearer ${svc.platformKey}` };
    t.is((await fetch(`${svc.url}/api/v2/organizations`, { headers })).status, 200);
    t.is(
      (
        await fetch(`${svc.url}/api/v2/organizations`, {
          headers: { ...headers, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
        })
      ).status,
      200,
    );
    const lines = mem.lines.filter((l) => l.door === 'rest' && l.route === '/api/v2/organizations');
    t.is(lines.length, 2);
    t.is(lines[0]!.traceId, undefined);
    t.is(lines[1]!.traceId, traceId);
  } finally {
    await svc.stop();
  }
});

test.serial('a collector that is down costs requests nothing and is reported, without credentials', async (t) => {
  // A port nothing listens on: bound, then closed.
  const gone = await startCollector();
  await gone.stop();
  const mem = memoryLogger();
  const endpoint = gone.url.replace('http://', 'http://user:s3cret@');
  // Read by the exporter itself, from the process: a refused export is retried for this long (default 10 s).
  process.env.OTEL_EXPORTER_OTLP_TIMEOUT = '500';
  const svc = await startTestService({ stores, logger: mem.logger, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
  let stopped = false;
  try {
    const res = await fetch(`${svc.url}/api/v2/organizations`, {
      headers: { authorization: `Bearer ${svc.platformKey}` },
    });
    t.is(res.status, 200);
    await svc.stop();
    stopped = true;
    const failed = mem.lines.filter((l) => l.msg === 'trace export failed');
    t.is(failed.length, 1, JSON.stringify(mem.lines.filter((l) => l.level !== 'info')));
    t.is(failed[0]!.collector, gone.url);
    t.true(failed[0]!.lostSpans >= 2);
    t.false(JSON.stringify(mem.lines).includes('s3cret'));
  } finally {
    if (!stopped) await svc.stop();
    delete process.env.OTEL_EXPORTER_OTLP_TIMEOUT;
  }
});
