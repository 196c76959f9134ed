import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  createBenchClient,
  expectStatus,
  type BenchClient,
  type BenchResponse,
  type HttpTarget,
} from './bench-client.js';
import { forEachBounded } from './closed-loop.js';
import { benchImport, type ImportResult } from './import-bench.js';
import { obeyRetryAfter } from './obey-retry-after.js';
import { generateProviders } from './provider-mix.js';
import { CONSTRAINT_MIXES, resolutionBody } from './resolution-requests.js';
import type { ResponseTally } from './response-tally.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

/** A provider of the seeded organization with its intake service. */
export interface BenchProvider {
  externalId: string;
  providerId: string;
  serviceId: string;
  timezone: string;
}

/** The seeded organization and how long each seeding step took. */
export interface SeededOrganization {
  organizationId: string;
  orgKey: string;
  providers: BenchProvider[];
  /** A provider alone in its region (US-AK), used by the contention scenario. */
  contention: { providerId: string; serviceId: string };
  /** Providers that already have a booking made by the bench (later scenarios pick others). */
  usedProviderIds: Set<string>;
  importResult: ImportResult;
  servicesMs: number;
  schedulesMs: number;
  bookingsMs: number;
  bookingsMade: number;
  bookingsAttempted: number;
}

/** Options of the seeding. */
export interface SeedOptions {
  target: HttpTarget;
  tally: ResponseTally;
  platformKey: string;
  providerCount: number;
  rowsPerImport: number;
  concurrency: number;
  existingBookings: number;
  firstDate: string;
  nowMs: number;
  rnd: SeededRandom;
  log: (line: string) => void;
}

const CUSTOMER = { name: 'Bench Client', email: 'bench-client@example.org', timezone: 'America/New_York' };

/**
 * A seeding call as a client following the contract makes it: a 503 is waited out (Retry-After) and sent again, up
 * to 6 times, so a refusal shows in the tally (and the zero-5xx target) without ending the run.
 */
const obeyed = async (send: () => Promise<BenchResponse>) => (await obeyRetryAfter(send, 6)).response;

/** Creates an organization (with a platform key) and an organization_test key for it. */
export async function createBenchOrganization(
  platform: BenchClient,
  name: string,
): Promise<{ organizationId: string; orgKey: string }> {
  const externalId = `bench-${randomUUID().slice(0, 8)}`;
  const org = expectStatus(await platform.post('/api/v2/organizations', { externalId, name }), 'create organization');
  const key = expectStatus(
    await platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.body.id, name: 'bench' }),
    'create api key',
  );
  return { organizationId: org.body.id as string, orgKey: key.body.key as string };
}

/**
 * Builds the bench organization through the public API on the platform path (every call with the platform key
 * and `Service-Organization-Id`, as platform customers call; a 503 waited out and sent again): providers by import, one 50-minute
 * 'Intake Session' service and one weekly schedule per provider, a lone contention provider, and some
 * existing bookings made by resolving and confirming. An organization key is made too, for the org-key rows.
 */
export async function seedOrganization(o: SeedOptions): Promise<SeededOrganization> {
  const platform = createBenchClient(o.target, { key: o.platformKey, tally: o.tally });
  const { organizationId, orgKey } = await createBenchOrganization(platform, 'Bench Clinic Network');
  const api = createBenchClient(o.target, {
    key: o.platformKey,
    headers: { 'service-organization-id': organizationId },
    tally: o.tally,
  });
  const generated = generateProviders(o.rnd, o.providerCount, o.nowMs);

  o.log(`importing ${generated.length} providers in calls of ${o.rowsPerImport}...`);
  const importResult = await benchImport(api, generated, o.rowsPerImport, o.log);
  const missing = generated.filter((g) => !importResult.providerIds.has(g.externalId)).length;
  if (missing > 0)
    throw new Error(`import: ${missing} providers have no id after the import (invalid: ${importResult.invalid})`);

  o.log(`creating ${generated.length} services...`);
  const serviceIds = new Map<string, string>();
  let t0 = performance.now();
  await forEachBounded(generated, o.concurrency, async (g) => {
    const providerId = importResult.providerIds.get(g.externalId)!;
    const r = expectStatus(
      await obeyed(() =>
        api.post('/api/v2/services', {
          providerId,
          title: 'Intake Session',
          duration: 50,
          modality: g.serviceModality,
        }),
      ),
      'create service',
    );
    serviceIds.set(g.externalId, r.body.id as string);
  });
  const servicesMs = performance.now() - t0;

  o.log(`creating ${generated.length} weekly schedules...`);
  t0 = performance.now();
  await forEachBounded(generated, o.concurrency, async (g) => {
    const providerId = importResult.providerIds.get(g.externalId)!;
    expectStatus(
      await obeyed(() =>
        api.post('/api/v2/calendar-connections', {
          providerId,
          title: 'Office hours',
          timezone: g.timezone,
          days: g.days,
        }),
      ),
      'create calendar connection',
    );
  });
  const schedulesMs = performance.now() - t0;

  const lone = expectStatus(
    await api.post('/api/v2/providers', {
      externalId: 'bench-contention',
      displayName: 'Dr. Contention Target',
      languageCodes: ['en'],
      serviceRegionCodes: ['US-AK'],
      modalityCodes: ['virtual'],
      insurancePlanCodes: ['self_pay'],
      acceptsNewClients: true,
      timezone: 'America/Los_Angeles',
    }),
    'create contention provider',
  );
  const loneService = expectStatus(
    await api.post('/api/v2/services', {
      providerId: lone.body.id,
      title: 'Intake Session',
      duration: 50,
      modality: 'virtual',
    }),
    'create contention service',
  );
  const weekday = { enabled: true, slots: [{ start: '09:00', end: '17:00' }] };
  expectStatus(
    await api.post('/api/v2/calendar-connections', {
      providerId: lone.body.id,
      timezone: 'America/Los_Angeles',
      days: { monday: weekday, tuesday: weekday, wednesday: weekday, thursday: weekday, friday: weekday },
    }),
    'create contention schedule',
  );

  const providers: BenchProvider[] = generated.map((g) => ({
    externalId: g.externalId,
    providerId: importResult.providerIds.get(g.externalId)!,
    serviceId: serviceIds.get(g.externalId)!,
    timezone: g.timezone,
  }));
  const allServiceIds = providers.map((p) => p.serviceId);

  o.log(`making ${o.existingBookings} existing bookings (resolve + confirm)...`);
  const usedProviderIds = new Set<string>();
  let bookingsMade = 0;
  t0 = performance.now();
  await forEachBounded(
    Array.from({ length: o.existingBookings }, (_, i) => i),
    o.concurrency,
    async () => {
      const body = resolutionBody(CONSTRAINT_MIXES.mix3, o.rnd, {
        serviceIds: allServiceIds,
        from: o.firstDate,
        days: 14,
        maxOptionsPerProvider: 1,
      });
      const key = randomUUID();
      const r = await obeyed(() => api.post('/api/v2/resolutions', body, { 'idempotency-key': key }));
      if (r.status !== 200) return;
      const option = (r.body.options as any[]).find((x) => !usedProviderIds.has(x.provider.id));
      if (!option) return;
      usedProviderIds.add(option.provider.id);
      const confirmKey = randomUUID();
      const c = await obeyed(() =>
        api.post(
          `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
          { optionId: option.optionId, customer: CUSTOMER },
          { 'idempotency-key': confirmKey },
        ),
      );
      if (c.status === 200) bookingsMade++;
    },
  );
  const bookingsMs = performance.now() - t0;

  return {
    organizationId,
    orgKey,
    providers,
    contention: { providerId: lone.body.id, serviceId: loneService.body.id },
    usedProviderIds,
    importResult,
    servicesMs,
    schedulesMs,
    bookingsMs,
    bookingsMade,
    bookingsAttempted: o.existingBookings,
  };
}
