/**
 * A small client of the REST API, as a platform customer would write one: openapi-fetch calls typed by
 * openapi-typescript from the service's own openapi.json (examples/generated/rest-api.d.ts, `npm run generate`). It
 * creates a provider, a service and a weekly schedule, resolves a request, holds the first option, confirms it and
 * reads the organization's bookings back, page size as a number (`limit: 10`).
 *
 *   API_URL=http://localhost:8080 API_KEY=service_... [ORGANIZATION_ID=org_...] npx tsx examples/rest-client.ts
 *
 * API_KEY is a platform key and ORGANIZATION_ID the organization it acts in (header `Service-Organization-Id`):
 * creating providers takes a platform key (CONTRACT part 2).
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import type { paths } from './generated/rest-api.js';

/** Where and as whom the client calls. */
export interface RestClientOptions {
  baseUrl: string;
  apiKey: string;
  organizationId?: string;
  /** The first day to look for slots (YYYY-MM-DD); the window is 7 days from it. */
  from: string;
  log?: (line: string) => void;
}

/** What the walk made. */
export interface RestClientResult {
  providerId: string;
  serviceId: string;
  resolutionId: string;
  optionId: string;
  holdId: string;
  bookingId: string;
  bookingStatus: string;
  /** How many bookings the first page of the organization's list (limit 10) held. */
  listed: number;
}

/** The data of an answer, or an error naming the contract's code (the error envelope's `code`). */
function dataOf<T>(what: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data !== undefined) return answer.data;
  const error = (answer.error as { error?: { code?: string; message?: string } } | undefined)?.error;
  throw new Error(`${what}: ${answer.response.status} ${error?.code ?? ''} ${error?.message ?? ''}`.trim());
}

/** Runs the walk: provider, service, schedule, resolution, hold, confirmation, then a page of bookings. */
export async function runRestClient(o: RestClientOptions): Promise<RestClientResult> {
  const log = o.log ?? (() => undefined);
  const api = createClient<paths>({
    baseUrl: o.baseUrl,
    headers: {
      Authorization: `Bearer ${o.apiKey}`,
      ...(o.organizationId ? { 'Service-Organization-Id': o.organizationId } : {}),
    },
  });
  const suffix = randomUUID().slice(0, 8);
  const provider = dataOf(
    'create provider',
    await api.POST('/api/v2/providers', {
      body: {
        externalId: `rest-${suffix}`,
        displayName: 'Dr. Ada Rest',
        languageCodes: ['en'],
        modalityCodes: ['virtual'],
        acceptsNewClients: true,
        timezone: 'America/New_York',
      },
    }),
  );
  log(`provider ${provider.id}`);
  const service = dataOf(
    'create service',
    await api.POST('/api/v2/services', { body: { providerId: provider.id, title: 'Intake Session', duration: 50 } }),
  );
  log(`service ${service.id}`);
  const day = { enabled: true, slots: [{ start: '09:00', end: '17:00' }] };
  const schedule = dataOf(
    'create schedule',
    await api.POST('/api/v2/calendar-connections', {
      body: {
        providerId: provider.id,
        timezone: 'America/New_York',
        days: { monday: day, tuesday: day, wednesday: day, thursday: day, friday: day },
      },
    }),
  );
  log(`schedule ${schedule.id}`);
  const to = new Date(Date.parse(`${o.from}T00:00:00Z`) + 7 * 86_400_000).toISOString().slice(0, 10);
  const resolution = dataOf(
    'resolve',
    await api.POST('/api/v2/resolutions', {
      params: { header: { 'Idempotency-Key': randomUUID() } },
      body: {
        serviceId: service.id,
        constraints: { languageCodes: { anyOf: ['en'] }, modalityCodes: { anyOf: ['virtual'] } },
        dateRange: { from: o.from, to },
      },
    }),
  );
  const option = resolution.options[0];
  if (!option) throw new Error(`resolution ${resolution.resolutionId} has no option (${resolution.status})`);
  log(`resolution ${resolution.resolutionId}: ${resolution.options.length} options, first at ${option.slot.start}`);
  const hold = dataOf(
    'hold',
    await api.POST('/api/v2/resolutions/{id}/options/{optionId}/hold', {
      params: { path: { id: resolution.resolutionId, optionId: option.optionId } },
      body: { ttlSeconds: 120 },
    }),
  );
  log(`hold ${hold.holdId} until ${hold.expiresAt}`);
  const booking = dataOf(
    'confirm',
    await api.POST('/api/v2/resolutions/{id}/confirm', {
      params: { path: { id: resolution.resolutionId }, header: { 'Idempotency-Key': randomUUID() } },
      body: {
        optionId: option.optionId,
        holdId: hold.holdId,
        customer: { name: 'Grace', email: 'grace@example.com' },
      },
    }),
  );
  log(`booking ${booking.id} ${booking.status}`);
  // Query parameters take their types: an integer page size and a boolean filter, sent as their text.
  const page = dataOf(
    'list bookings',
    await api.GET('/api/v2/bookings', { params: { query: { limit: 10, status: 'confirmed' } } }),
  );
  const searchable = dataOf(
    'list providers',
    await api.GET('/api/v2/providers', { params: { query: { limit: 10, searchable: true } } }),
  );
  log(`${page.data.length} confirmed bookings, ${searchable.data.length} searchable providers on the first pages`);
  return {
    providerId: provider.id,
    serviceId: service.id,
    resolutionId: resolution.resolutionId,
    optionId: option.optionId,
    holdId: hold.holdId,
    bookingId: booking.id,
    bookingStatus: booking.status,
    listed: page.data.length,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const apiKey = process.env.API_KEY;
  if (!apiKey) {
    console.error('API_KEY is required (an organization key, or a platform key with ORGANIZATION_ID)');
    process.exit(2);
  }
  runRestClient({
    baseUrl: process.env.API_URL ?? 'http://localhost:8080',
    apiKey,
    organizationId: process.env.ORGANIZATION_ID,
    from: process.env.FROM ?? new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
    log: (l) => console.log(l),
  }).then(
    (r) => console.log(JSON.stringify(r)),
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
