import { randomBytes } from 'node:crypto';
import { bootstrapPlatform } from '../../src/application/bootstrap-platform.js';
import { client } from '../helpers/http.js';
import type { TestService } from '../helpers/test-service.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';

/** The webhook URL the fuzz configures (WEBHOOK_ALLOW_INSECURE_URLS=1): nothing listens there, so a send fails at once. */
export const FUZZ_HOOK_URL = 'http://127.0.0.1:9/fuzz-hook';
/** The calendar feed URL examples are pointed at: refused at once, never a fetch leaving the machine. */
export const FUZZ_FEED_URL = 'http://127.0.0.1:9/fuzz-feed.ics';
/**
 * The fuzz clock: openapi.json's examples are dated from it (their slots on 2026-05-11, the first Monday a week ahead);
 * the fixtures' resolutions and v1 slots rotate over the weeks from 2026-05-04.
 */
export const FUZZ_CLOCK_START = '2026-05-01T12:00:00Z';

/** Every day 08:00-18:00. */
const EVERY_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    { enabled: true, slots: [{ start: '08:00', end: '18:00' }] },
  ]),
);

/** A provider matching every constraint of the openapi examples (en, virtual, US-MA, aetna, adult, anxiety, lcsw). */
const providerBody = (externalId: string) => ({
  externalId,
  displayName: `Dr. ${externalId}`,
  email: `${externalId}@fuzz.example`,
  status: 'active',
  searchable: true,
  professionCode: 'lcsw',
  specialtyCodes: ['anxiety'],
  languageCodes: ['en'],
  modalityCodes: ['virtual'],
  serviceRegionCodes: ['US-MA'],
  insurancePlanCodes: ['aetna'],
  ageGroupCodes: ['adult'],
  licenseRecords: [
    {
      licenseTypeCode: 'lcsw',
      regionCode: 'US-MA',
      status: 'active',
      expiresAt: '2027-12-31',
      verifiedAt: '2026-04-01T00:00:00Z',
    },
  ],
  acceptsNewClients: true,
  timezone: 'America/New_York',
  location: 'Boston, MA',
  panelCapacity: 500,
  panelCurrentCount: 0,
});

/** The fixtures a fuzz run refers to: keys, ids of organization F (the fuzzed one), and fresh resources on demand. */
export interface FuzzFixtures {
  /** A fixture value by name: `key.*` (API keys), `org`, `provider`… (F's stable ids), `foreign.*` (other organizations' ids), `fresh.*` (made now). */
  lookup(name: string, fresh: Map<string, unknown>): Promise<unknown>;
  /** F's organization id. */
  orgId: string;
  /** The platform key the service was started with. */
  platformKey: string;
  /** How many setup calls the fixtures made (fresh resources included). */
  setupCalls(): number;
}

/** Builds organization F (every kind of resource), a second organization G and another platform's organization, and keys of every kind. */
export async function createFuzzFixtures(svc: TestService): Promise<FuzzFixtures> {
  const platform = client(svc.url, svc.platformKey);
  let calls = 0;
  const ok = async <T = any>(what: string, p: Promise<{ status: number; body: T }>): Promise<T> => {
    calls++;
    const r = await p;
    if (r.status >= 300) throw new Error(`fuzz fixture ${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  let counter = 0;
  const unique = (prefix: string) => `${prefix}-${(++counter).toString(36)}`;
  const ids: Record<string, string> = {};
  const keys: Record<string, string> = { platform: svc.platformKey };

  const org = await ok(
    'organization F',
    platform.post('/api/v2/organizations', {
      externalId: 'fuzz-f',
      name: 'Fuzz Clinic',
      settings: { plan: 'launch', timezone: 'America/New_York' },
    }),
  );
  ids.org = org.id;
  const f = client(svc.url, svc.platformKey, { 'service-organization-id': org.id });
  const idem = () => ({ 'idempotency-key': randomBytes(12).toString('hex') });
  keys.orgTest = (
    await ok(
      'F test key',
      platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'fuzz test' }),
    )
  ).key;
  // Live keys come from the platform's live key: a test key may create only test keys.
  keys.platformLive = await livePlatformKey(svc);
  keys.orgLive = (
    await ok(
      'F live key',
      client(svc.url, keys.platformLive).post('/api/v2/api-keys', {
        type: 'organization_live',
        organizationId: org.id,
        name: 'fuzz live',
      }),
    )
  ).key;
  const revoked = await ok(
    'revoked key',
    platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'fuzz revoked' }),
  );
  await ok('revoke', platform.delete(`/api/v2/api-keys/${revoked.id}`));
  keys.revoked = revoked.key;
  ids.apiKey = (
    await ok(
      'F spare key',
      platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'fuzz spare' }),
    )
  ).id;

  const provider = await ok('provider', f.post('/api/v2/providers', providerBody('fuzz-provider')));
  ids.provider = provider.id;
  ids.providerExternalId = provider.externalId;
  ids.service = (
    await ok(
      'service',
      f.post('/api/v2/services', {
        providerId: provider.id,
        title: 'Initial consultation',
        duration: 50,
        modality: 'virtual',
        slotIntervalMinutes: 60,
      }),
    )
  ).id;
  ids.calendar = (
    await ok(
      'schedule',
      f.post('/api/v2/calendar-connections', {
        providerId: provider.id,
        timezone: 'America/New_York',
        days: EVERY_DAY,
        title: 'Fuzz week',
      }),
    )
  ).id;
  ids.policy = (await ok('policy', f.post('/api/v2/ranking-policies', { name: 'Fuzz policy' }))).id;
  await ok('policy activation', f.post(`/api/v2/ranking-policies/${ids.policy}/activate`));

  /** A resolution of F's service over one week (weeks rotate so booked slots do not run out). */
  let weeks = 0;
  const newResolution = async () => {
    const from = new Date(Date.parse('2026-05-04T00:00:00Z') + 7 * 86_400_000 * (weeks++ % 12));
    const to = new Date(from.getTime() + 6 * 86_400_000);
    const r = await ok(
      'resolution',
      f.post(
        '/api/v2/resolutions',
        {
          serviceId: ids.service,
          dateRange: { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) },
          maxOptionsPerProvider: 5,
        },
        idem(),
      ),
    );
    if (!r.options?.[0]) throw new Error(`fuzz fixture resolution has no option: ${JSON.stringify(r)}`);
    return {
      resolution: r.resolutionId as string,
      option: r.options[0].optionId as string,
      options: r.options.map((o: { optionId: string }) => o.optionId) as string[],
    };
  };
  const first = await newResolution();
  ids.resolution = first.resolution;
  ids.option = first.option;
  ids.heldOption = first.options[1] ?? first.option;
  ids.hold = (
    await ok(
      'hold',
      f.post(`/api/v2/resolutions/${first.resolution}/options/${ids.heldOption}/hold`, { ttlSeconds: 600 }),
    )
  ).holdId;
  const second = await newResolution();
  ids.bookingV2 = (
    await ok(
      'v2 booking',
      f.post(
        `/api/v2/resolutions/${second.resolution}/confirm`,
        { optionId: second.option, customer: { name: 'Fuzz Customer', email: 'customer@fuzz.example' } },
        idem(),
      ),
    )
  ).id;

  const orgKey = client(svc.url, keys.orgTest);
  let slotDay = 0;
  /** A free v1 slot of F's provider and service, on a day not used before (days rotate over two months). */
  const freeSlot = async (): Promise<string> => {
    for (let tries = 0; tries < 60; tries++) {
      const date = new Date(Date.parse('2026-05-04T00:00:00Z') + 86_400_000 * (slotDay++ % 60))
        .toISOString()
        .slice(0, 10);
      const slots = await ok(
        'v1 slots',
        orgKey.get(`/api/v1/slots?providerId=${ids.provider}&eventTypeId=${ids.service}&date=${date}`),
      );
      const free = (slots.slots as { id: string; available: boolean }[]).find((s) => s.available);
      if (free) return free.id;
    }
    throw new Error('fuzz fixture: no free v1 slot left');
  };
  const newV1Booking = async () => {
    const b = await ok(
      'v1 booking',
      orgKey.post('/api/v1/bookings', {
        providerId: ids.provider,
        serviceId: ids.service,
        slotId: await freeSlot(),
        attendee: { name: 'Fuzz Attendee', email: 'attendee@fuzz.example' },
      }),
    );
    return { id: b.data.id as string, token: b.data.tokenToConfirm as string };
  };
  const v1 = await newV1Booking();
  ids.bookingV1 = v1.id;

  ids.import = (
    await ok(
      'import',
      f.post('/api/v2/provider-imports', {
        dryRun: true,
        providers: [{ externalId: 'fuzz-imported', displayName: 'Dr. Fuzz Imported' }],
      }),
    )
  ).importId;
  ids.waitlist = (
    await ok(
      'waitlist',
      f.post('/api/v2/waitlist', {
        serviceId: ids.service,
        customer: { name: 'Fuzz Waiter', email: 'waiter@fuzz.example' },
      }),
    )
  ).id;
  await ok('continuity', f.post('/api/v2/continuity', { providerId: ids.provider, clientRef: 'client-778' }));
  const live = client(svc.url, keys.platformLive, { 'service-organization-id': org.id });
  await ok('webhook', live.put('/api/v2/webhooks', { url: FUZZ_HOOK_URL, events: ['*'] }));
  // A provider speaking no language: a resolution asking for one puts it in manual review.
  const silent = await ok(
    'review provider',
    f.post('/api/v2/providers', { ...providerBody('fuzz-silent'), languageCodes: [] }),
  );
  ids.reviewProvider = silent.id;
  await ok(
    'review service',
    f.post('/api/v2/services', { providerId: silent.id, title: 'Initial consultation', duration: 50 }),
  );
  await ok(
    'review schedule',
    f.post('/api/v2/calendar-connections', { providerId: silent.id, timezone: 'America/New_York', days: EVERY_DAY }),
  );
  await ok(
    'review resolution',
    f.post(
      '/api/v2/resolutions',
      {
        serviceId: ids.service,
        dateRange: { from: '2026-05-04', to: '2026-05-05' },
        constraints: { languageCodes: { anyOf: ['en'] } },
      },
      idem(),
    ),
  );
  await until(
    'the import job completes',
    async () => (await f.get(`/api/v2/provider-imports/${ids.import}`)).body.status === 'completed',
  );
  await until('F has a webhook delivery', async () => {
    const d = (await f.get('/api/v2/webhooks/deliveries')).body.deliveries;
    if (d?.[0]) ids.delivery = d[0].id;
    return Boolean(d?.[0]);
  });
  const events = (await ok('events', f.get('/api/v2/events?limit=1'))).data;
  ids.event = events[0].id;
  // A live-mode change: its delivery is attempted (and fails at once: nothing listens), so it can be replayed.
  await ok('live provider', live.post('/api/v2/providers', providerBody('fuzz-live')));
  await until('F has a failed live delivery', async () => {
    const d = (await live.get('/api/v2/webhooks/deliveries?status=failed')).body.deliveries;
    if (d?.[0]) ids.liveDelivery = d[0].id;
    return Boolean(d?.[0]);
  });

  // G: another organization of the same platform; C: another platform's default organization.
  const g = await ok(
    'organization G',
    platform.post('/api/v2/organizations', { externalId: 'fuzz-g', name: 'Other Clinic' }),
  );
  const gc = client(svc.url, svc.platformKey, { 'service-organization-id': g.id });
  const gp = await ok('G provider', gc.post('/api/v2/providers', providerBody('other-provider')));
  const foreign: Record<string, string> = {
    org: g.id,
    provider: gp.id,
    service: (await ok('G service', gc.post('/api/v2/services', { providerId: gp.id, title: 'Other', duration: 50 })))
      .id,
  };
  const other = await bootstrapPlatform(svc.service.deps.db, {
    bootstrapKey: `service_test_${randomBytes(24).toString('base64url')}`,
    now: svc.clock(),
  });
  foreign.platformOrg = (
    await svc.service.deps.db.query('SELECT default_organization_id AS id FROM platforms WHERE id = $1', [
      other.platformId,
    ])
  ).rows[0].id;

  /** Fresh resources, made when a request needs one (each request gets its own). */
  const makers: Record<string, (fresh: Map<string, unknown>) => Promise<unknown>> = {
    'fresh.externalId': async () => unique('fz'),
    'fresh.org': async () =>
      (
        await ok(
          'fresh organization',
          platform.post('/api/v2/organizations', { externalId: unique('fz-org'), name: 'Fuzz Victim' }),
        )
      ).id,
    'fresh.provider': async () =>
      (await ok('fresh provider', f.post('/api/v2/providers', providerBody(unique('fz-victim'))))).id,
    'fresh.service': async (fresh) =>
      (
        await ok(
          'fresh service',
          f.post('/api/v2/services', {
            providerId: await get('fresh.provider', fresh),
            title: unique('Fuzz Session'),
            duration: 50,
          }),
        )
      ).id,
    'fresh.calendar': async (fresh) =>
      (
        await ok(
          'fresh schedule',
          f.post('/api/v2/calendar-connections', {
            providerId: await get('fresh.provider', fresh),
            timezone: 'America/New_York',
            days: EVERY_DAY,
          }),
        )
      ).id,
    'fresh.apiKey': async () =>
      (
        await ok(
          'fresh key',
          platform.post('/api/v2/api-keys', {
            type: 'organization_test',
            organizationId: org.id,
            name: unique('fz-key'),
          }),
        )
      ).id,
    'fresh.waitlist': async () =>
      (
        await ok(
          'fresh waitlist',
          f.post('/api/v2/waitlist', {
            serviceId: ids.service,
            customer: { name: 'Fuzz Waiter', email: 'waiter@fuzz.example' },
          }),
        )
      ).id,
    'fresh.bundle': async () => newResolution(),
    'fresh.resolution': async (fresh) => ((await get('fresh.bundle', fresh)) as { resolution: string }).resolution,
    'fresh.option': async (fresh) => ((await get('fresh.bundle', fresh)) as { option: string }).option,
    'fresh.hold': async (fresh) =>
      (
        await ok(
          'fresh hold',
          f.post(
            `/api/v2/resolutions/${await get('fresh.resolution', fresh)}/options/${await get('fresh.option', fresh)}/hold`,
            { ttlSeconds: 600 },
          ),
        )
      ).holdId,
    'fresh.v1': async () => newV1Booking(),
    'fresh.bookingV1': async (fresh) => ((await get('fresh.v1', fresh)) as { id: string }).id,
    'fresh.token': async (fresh) => ((await get('fresh.v1', fresh)) as { token: string }).token,
    'fresh.slot': async () => freeSlot(),
    'fresh.uuid': async () => randomBytes(16).toString('hex'),
  };
  async function get(name: string, fresh: Map<string, unknown>): Promise<unknown> {
    if (name.startsWith('key.')) return keys[name.slice(4)];
    if (name.startsWith('foreign.')) return foreign[name.slice(8)];
    if (name in ids) return ids[name];
    const make = makers[name];
    if (!make) throw new Error(`no fuzz fixture ${name}`);
    if (!fresh.has(name)) fresh.set(name, await make(fresh));
    return fresh.get(name);
  }
  return { lookup: get, orgId: org.id, platformKey: svc.platformKey, setupCalls: () => calls };
}

/** Polls `done` every 200 ms until it holds, at most 20 s. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`fuzz fixture: ${what} did not happen within 20 s`);
}
