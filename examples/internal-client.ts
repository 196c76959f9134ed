/**
 * A small internal client of the typed gRPC API, as another service of the platform would write it: it creates a
 * provider, a service and a weekly schedule, resolves a request, holds the first option and confirms it, all over
 * gRPC with the API key in metadata and a deadline on every call.
 *
 *   GRPC_TARGET=localhost:50051 API_KEY=sk_... [ORGANIZATION_ID=org_...] npx tsx examples/internal-client.ts
 *
 * API_KEY is a platform key and ORGANIZATION_ID the organization it acts in (metadata `service-organization-id`):
 * creating providers takes a platform key (CONTRACT part 2).
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { ProviderServiceClient } from '../src/gen/scheduling/v1/provider_service.js';
import { CatalogServiceClient } from '../src/gen/scheduling/v1/catalog_service.js';
import { CalendarServiceClient } from '../src/gen/scheduling/v1/calendar_service.js';
import { ResolutionServiceClient } from '../src/gen/scheduling/v1/resolution_service.js';
import { BookingServiceClient } from '../src/gen/scheduling/v1/booking_service.js';
import type { BookingV2 } from '../src/gen/scheduling/v1/resources.js';
import { decodeServiceError } from '../src/grpc/error-metadata.js';

/** Where and as whom the client calls. */
export interface InternalClientOptions {
  target: string;
  apiKey: string;
  organizationId?: string;
  /** Deadline of each call in milliseconds (default 5,000). */
  deadlineMs?: number;
  /** The first day to look for slots (YYYY-MM-DD); the window is 7 days from it. */
  from: string;
  log?: (line: string) => void;
}

/** What the walk made. */
export interface InternalClientResult {
  providerId: string;
  serviceId: string;
  resolutionId: string;
  optionId: string;
  holdId: string;
  booking: BookingV2;
}

/** Calls a unary method with a deadline, retrying UNAVAILABLE (the service restarting) a few times with backoff. */
async function call<Req, Res>(
  method: (
    req: Req,
    md: Metadata,
    opts: { deadline: Date },
    cb: (err: ServiceError | null, res: Res) => void,
  ) => unknown,
  request: Req,
  metadata: Metadata,
  deadlineMs: number,
): Promise<Res> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await new Promise<Res>((resolve, reject) => {
        method(request, metadata, { deadline: new Date(Date.now() + deadlineMs) }, (err, res) =>
          err ? reject(err) : resolve(res),
        );
      });
    } catch (err) {
      const e = err as ServiceError;
      if (e.code !== status.UNAVAILABLE || attempt >= 3) throw describe(e);
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  }
}

/**
 * An error with the contract's code in its message: the reason of the `google.rpc.ErrorInfo` in the call's
 * `grpc-status-details-bin` trailer, decoded by the service's one decoder.
 */
function describe(e: ServiceError): Error {
  const { code, field } = decodeServiceError(e);
  return Object.assign(new Error(`${status[e.code]} ${code}${field ? ` (field ${field})` : ''}: ${e.details}`), {
    grpcCode: e.code,
    errorCode: code,
    field,
  });
}

/** Runs the walk: provider, service, schedule, resolution, hold, confirmation. */
export async function runInternalClient(o: InternalClientOptions): Promise<InternalClientResult> {
  const log = o.log ?? (() => undefined);
  const deadlineMs = o.deadlineMs ?? 5_000;
  const creds = credentials.createInsecure();
  const providers = new ProviderServiceClient(o.target, creds);
  const catalog = new CatalogServiceClient(o.target, creds);
  const calendars = new CalendarServiceClient(o.target, creds);
  const resolutions = new ResolutionServiceClient(o.target, creds);
  const bookings = new BookingServiceClient(o.target, creds);
  /** Metadata of one call: the key, the organization, and an idempotency key where the method wants one. */
  const md = (idempotencyKey?: string) => {
    const m = new Metadata();
    m.set('authorization', `Bearer ${o.apiKey}`);
    if (o.organizationId) m.set('service-organization-id', o.organizationId);
    if (idempotencyKey) m.set('idempotency-key', idempotencyKey);
    return m;
  };
  try {
    const suffix = randomUUID().slice(0, 8);
    const provider = await call(
      providers.createProvider.bind(providers),
      {
        externalId: `internal-${suffix}`,
        displayName: 'Dr. Ada Internal',
        languageCodes: ['en'],
        modalityCodes: ['virtual'],
        acceptsNewClients: true,
        timezone: 'America/New_York',
      },
      md(),
      deadlineMs,
    );
    log(`provider ${provider.provider?.id}`);
    const providerId = provider.provider!.id!;
    const service = await call(
      catalog.createService.bind(catalog),
      { providerId, title: 'Intake Session', duration: 50 },
      md(),
      deadlineMs,
    );
    const serviceId = service.service!.id!;
    log(`service ${serviceId}`);
    const day = { enabled: true, slots: [{ start: '09:00', end: '17:00' }] };
    const schedule = await call(
      calendars.createCalendarConnection.bind(calendars),
      {
        providerId,
        timezone: 'America/New_York',
        days: { monday: day, tuesday: day, wednesday: day, thursday: day, friday: day },
      },
      md(),
      deadlineMs,
    );
    log(`schedule ${schedule.calendarConnection?.id}`);
    const to = new Date(Date.parse(`${o.from}T00:00:00Z`) + 7 * 86_400_000).toISOString().slice(0, 10);
    const resolved = await call(
      resolutions.createResolution.bind(resolutions),
      {
        serviceId,
        constraints: { languageCodes: { anyOf: ['en'] }, modalityCodes: { anyOf: ['virtual'] } },
        dateRange: { fromDate: o.from, toDate: to },
      },
      md(randomUUID()),
      deadlineMs,
    );
    const resolution = resolved.resolution!;
    const option = resolution.options?.[0];
    if (!option)
      throw new Error(`resolution ${resolution.resolutionId} has no option (${resolution.resolutionStatus})`);
    log(
      `resolution ${resolution.resolutionId}: ${resolution.options!.length} options, first at ${option.slot?.start?.toISOString()}`,
    );
    const held = await call(
      resolutions.holdOption.bind(resolutions),
      { id: resolution.resolutionId, optionId: option.optionId, ttlSeconds: 120 },
      md(),
      deadlineMs,
    );
    log(`hold ${held.hold?.holdId} until ${held.hold?.expiresAt?.toISOString()}`);
    const confirmed = await call(
      resolutions.confirmResolution.bind(resolutions),
      {
        id: resolution.resolutionId,
        optionId: option.optionId,
        holdId: held.hold!.holdId,
        customer: { name: 'Grace', email: 'grace@example.com' },
      },
      md(randomUUID()),
      deadlineMs,
    );
    const booking = confirmed.booking!;
    log(`booking ${booking.id} ${booking.bookingStatus}`);
    // Read back through the booking service, as a later step of the internal workflow would.
    const read = await call(bookings.getBooking.bind(bookings), { id: booking.id }, md(), deadlineMs);
    return {
      providerId,
      serviceId,
      resolutionId: resolution.resolutionId!,
      optionId: option.optionId!,
      holdId: held.hold!.holdId!,
      booking: read.booking ?? booking,
    };
  } finally {
    for (const c of [providers, catalog, calendars, resolutions, bookings]) c.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const target = process.env.GRPC_TARGET ?? 'localhost:50051';
  const apiKey = process.env.API_KEY;
  if (!apiKey) {
    console.error('API_KEY is required (an organization key, or a platform key with ORGANIZATION_ID)');
    process.exit(2);
  }
  const from = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  runInternalClient({
    target,
    apiKey,
    organizationId: process.env.ORGANIZATION_ID,
    from,
    log: (l) => console.log(l),
  }).then(
    (r) => console.log(`confirmed ${r.booking.id} (${r.booking.bookingStatus})`),
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
