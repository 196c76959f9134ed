import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startBenchStores } from './bench-stores.js';
import { processCpuMs } from './process-cpu.js';
import { startServiceProcess } from '../test/helpers/service-process.js';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { OrganizationServiceClient } from '../src/gen/scheduling/v1/organization_service.js';
import { ResolutionServiceClient } from '../src/gen/scheduling/v1/resolution_service.js';
import { startRawServer } from './raw-baseline.js';
import { findFreePort } from '../src/launcher/find-free-port.js';
import { client } from '../test/helpers/http.js';

/**
 * What one call costs the service (`npm run bench:cost`): a service process of its own (the `npm start` command) on
 * fresh private stores, one organization with one provider, and each kind of call sent COST_CALLS times (default
 * 1500) back to back from one keep-alive connection, on the platform path (platform key + Service-Organization-Id).
 * Prints the wall time per call and the service process's CPU per call (/proc utime+stime): the floor under every
 * scenario of `npm run bench`, since the service answers on one event loop. ONLY=<name> runs one kind.
 * The stack floor: the cheapest authenticated GET through the gateway and gRPC, and the same call straight over gRPC
 * in the gateway's JSON form and in the typed form, each as a ratio to a raw node:http hello-world measured the same
 * way in the same run (one connection, back to back).
 */
const CALLS = Number(process.env.COST_CALLS ?? 1500);
const stores = await startBenchStores({});
const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
const grpcPort = await findFreePort();
const svc = await startServiceProcess({
  databaseUrl: stores.databaseUrl,
  redisUrl: stores.redisUrl,
  platformKey,
  dataDir: join(stores.dir, 'service'),
  env: { RATE_LIMIT_PER_MINUTE: '100000000', RESOLUTION_TTL_SECONDS: '3600', GRPC_PORT: String(grpcPort) },
});
const grpcTarget = `127.0.0.1:${grpcPort}`;
const dispatcher = new Agent({ connections: 1 });
const raw = await startRawServer();
const creds = credentials.createInsecure();
const orgs = new OrganizationServiceClient(grpcTarget, creds);
const resolutions = new ResolutionServiceClient(grpcTarget, creds);
/** Promisifies a unary gRPC call; answers its status as text. */
const unary = (fn: (cb: (err: ServiceError | null) => void) => void) =>
  new Promise<string>((resolve) => fn((err) => resolve(err ? `grpc ${err.code}` : 'grpc OK')));
try {
  const platform = client(svc.url, platformKey);
  const org = (await platform.post('/api/v2/organizations', { externalId: 'request-cost', name: 'Request cost' })).body;
  const inOrg = client(svc.url, platformKey, { 'service-organization-id': org.id });
  const provider = (await inOrg.post('/api/v2/providers', { externalId: 'p1', displayName: 'Dr. One' })).body;
  const service = (await inOrg.post('/api/v2/services', { providerId: provider.id, title: 'Intake', duration: 50 }))
    .body;
  const day = { enabled: true, slots: [{ start: '09:00', end: '10:00' }] };
  await inOrg.post('/api/v2/calendar-connections', {
    providerId: provider.id,
    timezone: 'UTC',
    days: Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, day]),
    ),
  });
  const date = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const resolve = async (from: number) =>
    (
      await inOrg.post(
        '/api/v2/resolutions',
        { serviceId: service.id, dateRange: { from: date(from), to: date(from + 1) } },
        { 'idempotency-key': randomUUID() },
      )
    ).body;
  const taken = await resolve(2);
  const loser = await resolve(2);
  await inOrg.post(
    `/api/v2/resolutions/${taken.resolutionId}/confirm`,
    { optionId: taken.options[0].optionId, customer: { name: 'A', email: 'a@example.org' } },
    { 'idempotency-key': randomUUID() },
  );
  const headers = {
    authorization: `Bearer ${platformKey}`,
    'service-organization-id': org.id,
    'content-type': 'application/json',
  };
  const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const r = await request(`${svc.url}${path}`, {
      method: method as 'GET',
      headers: { ...headers, ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher,
    });
    const text = await r.body.text();
    return { status: r.statusCode, body: text };
  };
  const md = new Metadata();
  md.set('authorization', `Bearer ${platformKey}`);
  md.set('service-organization-id', org.id);
  const kinds: Record<string, () => Promise<string>> = {
    'raw node:http hello-world (baseline)': async () => {
      const r = await request(raw.url, { dispatcher });
      await r.body.text();
      return String(r.statusCode);
    },
    'GET organization': async () => String((await call('GET', `/api/v2/organizations/${org.id}`)).status),
    'GetOrganization over gRPC': () => unary((cb) => orgs.getOrganization({ id: org.id }, md, cb)),
    'GetResolution over gRPC': () => unary((cb) => resolutions.getResolution({ id: loser.resolutionId }, md, cb)),
    'GET resolution': async () => String((await call('GET', `/api/v2/resolutions/${loser.resolutionId}`)).status),
    'confirm of a taken slot (409)': async () =>
      String(
        (
          await call(
            'POST',
            `/api/v2/resolutions/${loser.resolutionId}/confirm`,
            { optionId: loser.options[0].optionId, customer: { name: 'B', email: 'b@example.org' } },
            { 'idempotency-key': randomUUID() },
          )
        ).status,
      ),
    'resolution of one provider, one day': async () =>
      String(
        (
          await call(
            'POST',
            '/api/v2/resolutions',
            { serviceId: service.id, dateRange: { from: date(3), to: date(4) } },
            { 'idempotency-key': randomUUID() },
          )
        ).status,
      ),
    'hold + release (a new resolution each)': async () => {
      const r = JSON.parse(
        (
          await call(
            'POST',
            '/api/v2/resolutions',
            { serviceId: service.id, dateRange: { from: date(4), to: date(5) } },
            { 'idempotency-key': randomUUID() },
          )
        ).body,
      );
      const path = `/api/v2/resolutions/${r.resolutionId}/options/${r.options[0].optionId}/hold`;
      return `${(await call('POST', path, {})).status}+${(await call('DELETE', path)).status}`;
    },
    'GET /healthz (no key, no operation)': async () => String((await call('GET', '/healthz')).status),
  };
  console.log(
    `${CALLS} calls of each kind, one connection, platform key + Service-Organization-Id; \`vs raw\` is wall time per call over the raw node:http baseline's`,
  );
  let rawWall: number | undefined;
  for (const [name, run] of Object.entries(kinds).filter(([n]) => !process.env.ONLY || n.includes(process.env.ONLY))) {
    for (let i = 0; i < 200; i++) await run();
    const statuses: Record<string, number> = {};
    const cpu0 = processCpuMs(svc.pid);
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) {
      const s = await run();
      statuses[s] = (statuses[s] ?? 0) + 1;
    }
    const wall = (performance.now() - t0) / CALLS;
    const cpu = (processCpuMs(svc.pid) - cpu0) / CALLS;
    if (name.startsWith('raw ')) rawWall = wall;
    const ratio = rawWall ? `${(wall / rawWall).toFixed(1)}x raw` : '';
    console.log(
      `${name.padEnd(40)} ${wall.toFixed(2)} ms wall ${ratio.padStart(9)}, ${cpu.toFixed(2)} ms service CPU per call   ${JSON.stringify(statuses)}`,
    );
  }
} finally {
  orgs.close();
  resolutions.close();
  await raw.stop();
  await dispatcher.close();
  await svc.stop();
  await stores.stop();
}
