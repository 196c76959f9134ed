import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startBenchStores } from './bench-stores.js';
import { processCpuMs } from './process-cpu.js';
import { startServiceProcess } from '../test/helpers/service-process.js';
import { client } from '../test/helpers/http.js';

/**
 * What one call costs the service (`npm run bench:cost`): a service process of its own (the `npm start` command) on
 * fresh private stores, one organization with one provider, and each kind of call sent COST_CALLS times (default
 * 1500) back to back from one keep-alive connection, on the platform path (platform key + Service-Organization-Id).
 * Prints the wall time per call and the service process's CPU per call (/proc utime+stime): the floor under every
 * scenario of `npm run bench`, since the service answers on one event loop. ONLY=<name> runs one kind.
 */
const CALLS = Number(process.env.COST_CALLS ?? 1500);
const stores = await startBenchStores({});
const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
const svc = await startServiceProcess({ databaseUrl: stores.databaseUrl, redisUrl: stores.redisUrl, platformKey, dataDir: join(stores.dir, 'service'), env: { RATE_LIMIT_PER_MINUTE: '100000000', RESOLUTION_TTL_SECONDS: '3600' } });
const dispatcher = new Agent({ connections: 1 });
try {
  const platform = client(svc.url, platformKey);
  const org = (await platform.post('/api/v2/organizations', { externalId: 'request-cost', name: 'Request cost' })).body;
  const inOrg = client(svc.url, platformKey, { 'service-organization-id': org.id });
  const provider = (await inOrg.post('/api/v2/providers', { externalId: 'p1', displayName: 'Dr. One' })).body;
  const service = (await inOrg.post('/api/v2/services', { providerId: provider.id, title: 'Intake', duration: 50 })).body;
  const day = { enabled: true, slots: [{ start: '09:00', end: '10:00' }] };
  await inOrg.post('/api/v2/calendar-connections', { providerId: provider.id, timezone: 'UTC', days: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, day])) });
  const date = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const resolve = async (from: number) => (await inOrg.post('/api/v2/resolutions', { serviceId: service.id, dateRange: { from: date(from), to: date(from + 1) } }, { 'idempotency-key': randomUUID() })).body;
  const taken = await resolve(2);
  const loser = await resolve(2);
  await inOrg.post(`/api/v2/resolutions/${taken.resolutionId}/confirm`, { optionId: taken.options[0].optionId, customer: { name: 'A', email: 'a@example.org' } }, { 'idempotency-key': randomUUID() });
  const headers = { authorization: `Bearer ${platformKey}`, 'service-organization-id': org.id, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const r = await request(`${svc.url}${path}`, { method: method as 'GET', headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body), dispatcher });
    const text = await r.body.text();
    return { status: r.statusCode, body: text };
  };
  const kinds: Record<string, () => Promise<string>> = {
    'GET organization': async () => String((await call('GET', `/api/v2/organizations/${org.id}`)).status),
    'GET resolution': async () => String((await call('GET', `/api/v2/resolutions/${loser.resolutionId}`)).status),
    'confirm of a taken slot (409)': async () => String((await call('POST', `/api/v2/resolutions/${loser.resolutionId}/confirm`, { optionId: loser.options[0].optionId, customer: { name: 'B', email: 'b@example.org' } }, { 'idempotency-key': randomUUID() })).status),
    'resolution of one provider, one day': async () => String((await call('POST', '/api/v2/resolutions', { serviceId: service.id, dateRange: { from: date(3), to: date(4) } }, { 'idempotency-key': randomUUID() })).status),
    'hold + release (a new resolution each)': async () => {
      const r = JSON.parse((await call('POST', '/api/v2/resolutions', { serviceId: service.id, dateRange: { from: date(4), to: date(5) } }, { 'idempotency-key': randomUUID() })).body);
      const path = `/api/v2/resolutions/${r.resolutionId}/options/${r.options[0].optionId}/hold`;
      return `${(await call('POST', path, {})).status}+${(await call('DELETE', path)).status}`;
    },
    'GET /healthz (no key, no operation)': async () => String((await call('GET', '/healthz')).status),
  };
  console.log(`${CALLS} calls of each kind, one connection, platform key + Service-Organization-Id`);
  for (const [name, run] of Object.entries(kinds).filter(([n]) => !process.env.ONLY || n.includes(process.env.ONLY))) {
    for (let i = 0; i < 200; i++) await run();
    const statuses: Record<string, number> = {};
    const cpu0 = processCpuMs(svc.pid);
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) { const s = await run(); statuses[s] = (statuses[s] ?? 0) + 1; }
    const wall = (performance.now() - t0) / CALLS;
    const cpu = (processCpuMs(svc.pid) - cpu0) / CALLS;
    console.log(`${name.padEnd(40)} ${wall.toFixed(2)} ms wall, ${cpu.toFixed(2)} ms service CPU per call   ${JSON.stringify(statuses)}`);
  }
} finally {
  await dispatcher.close();
  await svc.stop();
  await stores.stop();
}
