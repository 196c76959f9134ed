import { randomUUID } from 'node:crypto';
import { readGraphVersion } from '../../src/persistence/organization-repository.js';
import { client } from './http.js';
import { livePlatformKey } from './live-platform-key.js';
import type { TestService } from './test-service.js';

/** A weekday schedule `start`-`end` Monday to Friday. */
export function weekdays(start = '09:00', end = '17:00') {
  const day = { enabled: true, slots: [{ start, end }] };
  return { monday: day, tuesday: day, wednesday: day, thursday: day, friday: day };
}

/**
 * Creates an organization with an organization_live key and a platform client (the service's platform key) acting in
 * it. The live key is made with the platform's live key: a test key may create only test keys.
 */
export async function newOrganization(svc: TestService, externalId: string, settings: Record<string, unknown> = {}) {
  const p = client(svc.url, svc.platformKey);
  const org = (await p.post('/api/v2/organizations', { externalId, name: externalId, settings })).body;
  // A refused creation fails here, with its answer, rather than as a 403 on the organization's first call.
  if (!org.id) throw new Error(`organization create failed: ${JSON.stringify(org)}`);
  const made = (
    await client(svc.url, await livePlatformKey(svc)).post('/api/v2/api-keys', {
      type: 'organization_live',
      organizationId: org.id,
      name: 'test',
    })
  ).body;
  if (!made.key) throw new Error(`organization key create failed: ${JSON.stringify(made)}`);
  const key = made.key as string;
  return {
    org,
    key,
    api: client(svc.url, key),
    platform: client(svc.url, svc.platformKey, { 'service-organization-id': org.id }),
  };
}

/**
 * An organization named `prefix-<random>` with `n` providers (each with a service and a weekday schedule): its id and a
 * way to add one more (a new graph version).
 */
export async function organizationWith(svc: TestService, n: number, prefix = 'graph') {
  const o = await newOrganization(svc, `${prefix}-${randomUUID().slice(0, 8)}`);
  for (let i = 0; i < n; i++) await providerWithService(o, { externalId: `p${i}` });
  return {
    id: o.org.id as string,
    addProvider: () => providerWithService(o, { externalId: `extra-${randomUUID().slice(0, 6)}` }),
  };
}

/** Creates a provider with a service of `title` and (unless `schedule` is null) a weekday schedule. */
export async function providerWithService(
  o: Awaited<ReturnType<typeof newOrganization>>,
  p: Record<string, unknown> & { externalId: string },
  opts: {
    title?: string;
    duration?: number;
    timezone?: string;
    schedule?: Record<string, unknown> | null;
    service?: Record<string, unknown>;
  } = {},
) {
  const provider = (await o.platform.post('/api/v2/providers', { displayName: `Dr. ${p.externalId}`, ...p })).body;
  if (!provider.id) throw new Error(`provider create failed: ${JSON.stringify(provider)}`);
  const service = (
    await o.api.post('/api/v2/services', {
      providerId: provider.id,
      title: opts.title ?? 'Intake Session',
      duration: opts.duration ?? 60,
      ...opts.service,
    })
  ).body;
  if (!service.id) throw new Error(`service create failed: ${JSON.stringify(service)}`);
  let schedule;
  if (opts.schedule !== null) {
    schedule = (
      await o.api.post('/api/v2/calendar-connections', {
        providerId: provider.id,
        timezone: opts.timezone ?? 'America/New_York',
        days: weekdays(),
        ...(opts.schedule ?? {}),
      })
    ).body;
    if (!schedule.id) throw new Error(`schedule create failed: ${JSON.stringify(schedule)}`);
  }
  return { provider, service, schedule };
}

/**
 * An organization with varied providers for the graph's load tests: shared lists, licence records, a second service
 * and a schedule with a loopback feed (the service must allow insecure outbound URLs), and a bare provider whose row
 * lacks lists and holds JSON nulls, as rows written without the API do. Its id and graph version.
 */
export async function variedOrganization(svc: TestService, prefix: string) {
  const o = await newOrganization(svc, `${prefix}-${randomUUID().slice(0, 8)}`);
  await providerWithService(o, {
    externalId: 'full',
    displayName: 'Zoë Ångström 名前',
    email: 'full@example.org',
    professionCode: 'psychologist',
    specialtyCodes: ['anxiety', 'trauma'],
    languageCodes: ['en', 'es'],
    modalityCodes: ['virtual'],
    serviceRegionCodes: ['US-CA', 'US-NY'],
    insurancePlanCodes: ['aetna'],
    ageGroupCodes: ['adult'],
    licenseRecords: [
      { licenseTypeCode: 'psychologist', regionCode: 'US-CA', status: 'active', expiresAt: '2031-01-31' },
      {
        licenseTypeCode: 'psychologist',
        regionCode: 'US-NY',
        status: 'active',
        expiresAt: '2030-06-30',
        verifiedAt: '2026-01-02T03:04:05.000Z',
      },
    ],
    acceptsNewClients: true,
    timezone: 'America/Los_Angeles',
    panelCapacity: 30,
    panelCurrentCount: 12,
  });
  const twin = await providerWithService(o, {
    externalId: 'twin',
    languageCodes: ['en', 'es'],
    modalityCodes: ['virtual'],
    acceptsNewClients: false,
  });
  await o.api.post('/api/v2/services', { providerId: twin.provider.id, title: 'Follow-up', duration: 30, price: 90.5 });
  await o.api.post('/api/v2/calendar-connections', {
    providerId: twin.provider.id,
    timezone: 'Europe/Paris',
    days: { monday: { enabled: true, slots: [{ start: '08:00', end: '12:00' }] } },
    externalCalendar: { type: 'ics', url: 'http://127.0.0.1:9/twin.ics' },
  });
  await providerWithService(o, { externalId: 'bare' }, { schedule: null });
  const db = svc.service.deps.db;
  await db.query(
    `UPDATE providers SET doc = doc - 'languageCodes' || '{"insurancePlanCodes": null, "panelCapacity": null, "bio": null}'::jsonb
     WHERE organization_id = $1 AND external_id = 'bare'`,
    [o.org.id],
  );
  return { o, id: o.org.id as string, version: await readGraphVersion(db, o.org.id as string) };
}
