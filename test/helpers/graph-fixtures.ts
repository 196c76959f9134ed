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
  const key = (
    await client(svc.url, await livePlatformKey(svc)).post('/api/v2/api-keys', {
      type: 'organization_live',
      organizationId: org.id,
      name: 'test',
    })
  ).body.key as string;
  return {
    org,
    key,
    api: client(svc.url, key),
    platform: client(svc.url, svc.platformKey, { 'service-organization-id': org.id }),
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
