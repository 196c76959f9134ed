import test from 'ava';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { credentials, loadPackageDefinition, status, type ServiceError } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { runInternalClient } from '../../examples/internal-client.js';
import { ResolutionServiceClient } from '../../src/gen/scheduling/v1/resolution_service.js';
import { ProviderServiceClient } from '../../src/gen/scheduling/v1/provider_service.js';
import { BookingStatus } from '../../src/gen/scheduling/v1/resources.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { decodeServiceError, errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';
import { restOfResponse, routeOf } from '../helpers/typed-messages.js';
import { bearer, callbackCall } from '../helpers/typed-calls.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const unary = callbackCall;

const tomorrow = () => new Date(svc.clock().getTime() + 86_400_000).toISOString().slice(0, 10);

/** The descriptor of a message as server reflection serves it (the file and its dependencies, decoded). */
async function reflectMessage(
  symbol: string,
): Promise<{ field: { name: string; type: string; typeName: string; label: string; oneofIndex?: number }[] }> {
  const require = createRequire(import.meta.url);
  const protoRoot = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto');
  const pkg = loadPackageDefinition(
    protoLoader.loadSync('grpc/reflection/v1/reflection.proto', { includeDirs: [protoRoot], keepCase: true }),
  ) as any;
  const reflection = new pkg.grpc.reflection.v1.ServerReflection(svc.grpcTarget, credentials.createInsecure());
  try {
    const answer = await new Promise<any>((resolve, reject) => {
      const call = reflection.ServerReflectionInfo();
      call.on('data', (msg: unknown) => {
        resolve(msg);
        call.end();
      });
      call.on('error', reject);
      call.write({ file_containing_symbol: symbol });
    });
    // A FileDescriptorSet is its files as field 1: wrap the served descriptors into one and load it.
    const files = answer.file_descriptor_response.file_descriptor_proto as Buffer[];
    const parts: Buffer[] = [];
    for (const f of files) {
      const b = Buffer.from(f);
      const len: number[] = [];
      for (let n = b.length; ; n >>>= 7) {
        if (n < 0x80) {
          len.push(n);
          break;
        }
        len.push((n & 0x7f) | 0x80);
      }
      parts.push(Buffer.from([0x0a, ...len]), b);
    }
    const def = protoLoader.loadFileDescriptorSetFromBuffer(Buffer.concat(parts), { keepCase: true }) as any;
    return def[symbol].type;
  } finally {
    reflection.close();
  }
}

test('reflection describes CreateResolutionRequest with typed fields: ids as strings, nested messages, presence where missing matters', async (t) => {
  const type = await reflectMessage('scheduling.v1.CreateResolutionRequest');
  const fields = Object.fromEntries(type.field.map((f) => [f.name, f]));
  t.like(fields.service_id, { type: 'TYPE_STRING', label: 'LABEL_OPTIONAL' });
  t.like(fields.constraints, { type: 'TYPE_MESSAGE', typeName: 'ResolutionConstraints' });
  t.like(fields.preferences, { type: 'TYPE_MESSAGE', typeName: 'ResolutionPreferences' });
  t.like(fields.date_range, { type: 'TYPE_MESSAGE', typeName: 'DateRangeInput' });
  // Presence: the served descriptors (built by protobufjs) carry proto3 `optional` as its synthetic oneof.
  const oneofs = (type as unknown as { oneofDecl: { name: string }[] }).oneofDecl.map((o) => o.name);
  t.like(fields.max_options_per_provider, {
    type: 'TYPE_INT64',
    oneofIndex: oneofs.indexOf('_max_options_per_provider'),
  });
  t.like(fields.policy_id, { type: 'TYPE_STRING', oneofIndex: oneofs.indexOf('_policy_id') });
  t.true(oneofs.includes('_max_options_per_provider') && oneofs.includes('_policy_id'), oneofs.join(', '));
  const answer = await reflectMessage('scheduling.v1.Resolution');
  const byName = Object.fromEntries(answer.field.map((f) => [f.name, f]));
  // One enum per concept: the outcome is the shared ResolutionStatus, named after it.
  t.like(byName.resolution_status, { type: 'TYPE_ENUM' });
  t.regex(byName.resolution_status!.typeName, /ResolutionStatus$/);
  t.like(byName.expires_at, { type: 'TYPE_MESSAGE', typeName: 'google.protobuf.Timestamp' });
  t.like(byName.options, { type: 'TYPE_MESSAGE', label: 'LABEL_REPEATED', typeName: 'ResolutionOption' });
});

test('the example internal client creates a provider, a service and a schedule, resolves, holds and confirms over typed gRPC', async (t) => {
  // A platform key acting in one organization, as platform customers call.
  const o = await newOrganization(svc, 'typed-client');
  const lines: string[] = [];
  const r = await runInternalClient({
    target: svc.grpcTarget,
    apiKey: svc.platformKey,
    organizationId: o.org.id,
    from: tomorrow(),
    log: (l) => lines.push(l),
  });
  t.is(r.booking.bookingStatus, BookingStatus.BOOKING_STATUS_CONFIRMED);
  t.is(r.booking.resolutionId, r.resolutionId);
  t.is(r.booking.organizationId, o.org.id);
  t.true(r.booking.slot?.start instanceof Date);
  // The REST door sees the same booking, field for field.
  const rest = (await o.api.get(`/api/v2/bookings/${r.booking.id}`)).body;
  t.is(rest.status, 'confirmed');
  t.is(rest.provider.id, r.providerId);
  t.is(new Date(rest.slot.start).getTime(), r.booking.slot!.start!.getTime());
  t.is(rest.service.durationMinutes, r.booking.service?.durationMinutes);
  t.is(
    (await o.api.get(`/api/v2/resolutions/${r.resolutionId}/options/${r.optionId}/hold`)).body.bookingId,
    r.booking.id,
  );
  t.true(lines.length >= 6, lines.join('\n'));
});

test('bad typed input is refused behind the gRPC door with the code and field REST gives for the same input', async (t) => {
  const o = await newOrganization(svc, 'typed-bad');
  const { service } = await providerWithService(o, { externalId: 'typed-bad-1', languageCodes: ['en'] });
  const resolutions = new ResolutionServiceClient(svc.grpcTarget, credentials.createInsecure());
  const providers = new ProviderServiceClient(svc.grpcTarget, credentials.createInsecure());
  try {
    const to = new Date(Date.parse(`${tomorrow()}T00:00:00Z`) + 7 * 86_400_000).toISOString().slice(0, 10);
    const created = await unary<any>((cb) =>
      resolutions.createResolution(
        { serviceId: service.id, dateRange: { fromDate: tomorrow(), toDate: to } },
        bearer(o.key, { 'idempotency-key': `k-${Date.now()}` }),
        cb,
      ),
    );
    const resolution = created.resolution;
    t.is(resolution.resolutionStatus, 'RESOLUTION_STATUS_RESOLVED');
    const cases: { name: string; grpc: () => Promise<unknown>; rest: () => Promise<{ status: number; body: any }> }[] =
      [
        {
          name: 'ttlSeconds out of range',
          grpc: () =>
            unary((cb) =>
              resolutions.holdOption(
                { id: resolution.resolutionId, optionId: resolution.options[0].optionId, ttlSeconds: 0 },
                bearer(o.key),
                cb,
              ),
            ),
          rest: () =>
            o.api.post(
              `/api/v2/resolutions/${resolution.resolutionId}/options/${resolution.options[0].optionId}/hold`,
              { ttlSeconds: 0 },
            ),
        },
        {
          name: 'unknown language code',
          grpc: () =>
            unary((cb) =>
              providers.createProvider(
                { externalId: 'typed-bad-2', displayName: 'X', languageCodes: ['not a language'] },
                bearer(svc.platformKey, { 'service-organization-id': o.org.id }),
                cb,
              ),
            ),
          rest: () =>
            o.platform.post('/api/v2/providers', {
              externalId: 'typed-bad-2',
              displayName: 'X',
              languageCodes: ['not a language'],
            }),
        },
        {
          name: 'missing required field',
          grpc: () =>
            unary((cb) =>
              resolutions.confirmResolution(
                { id: resolution.resolutionId, optionId: resolution.options[0].optionId },
                bearer(o.key, { 'idempotency-key': `c-${Date.now()}` }),
                cb,
              ),
            ),
          rest: () =>
            o.api.post(
              `/api/v2/resolutions/${resolution.resolutionId}/confirm`,
              { optionId: resolution.options[0].optionId },
              { 'idempotency-key': `r-${Date.now()}` },
            ),
        },
      ];
    for (const c of cases) {
      const err = (await t.throwsAsync(c.grpc(), undefined, c.name)) as unknown as ServiceError;
      const rest = await c.rest();
      t.is(err.code, status.INVALID_ARGUMENT, c.name);
      t.is(rest.status, 400, c.name);
      t.is(errorCodeOfTrailers(err.metadata), rest.body.error.code, c.name);
      t.is(decodeServiceError(err).field, rest.body.error.field, c.name);
    }
    // Nothing was made by the refused calls.
    t.is((await o.api.get('/api/v2/providers?externalId=typed-bad-2')).body.data?.length ?? 0, 0);
  } finally {
    resolutions.close();
    providers.close();
  }
});

test('an update with a field mask changes exactly the named fields, clearing a named field left unset; without one it changes what is set', async (t) => {
  const o = await newOrganization(svc, 'typed-mask');
  const providers = new ProviderServiceClient(svc.grpcTarget, credentials.createInsecure());
  const md = () => bearer(svc.platformKey, { 'service-organization-id': o.org.id });
  try {
    const created = await unary<any>((cb) =>
      providers.createProvider(
        { externalId: 'mask-1', displayName: 'Dr. Mask', bio: 'Twenty years of practice', location: 'Boston' },
        md(),
        cb,
      ),
    );
    const id = created.provider.id;
    // No mask: only the fields that are set change.
    await unary((cb) => providers.updateProvider({ id, displayName: 'Dr. Mask Jr.' }, md(), cb));
    t.like((await o.api.get(`/api/v2/providers/${id}`)).body, {
      displayName: 'Dr. Mask Jr.',
      bio: 'Twenty years of practice',
      location: 'Boston',
    });
    // A mask naming `bio` (unset) and `location` (set): bio is cleared, location changed, the rest kept.
    const updated = await unary<any>((cb) =>
      providers.updateProvider({ id, location: 'Cambridge', updateMask: ['bio', 'location'] }, md(), cb),
    );
    t.is(updated.provider.bio, undefined);
    t.like((await o.api.get(`/api/v2/providers/${id}`)).body, {
      displayName: 'Dr. Mask Jr.',
      bio: null,
      location: 'Cambridge',
    });
    // An unknown path is refused on updateMask and changes nothing.
    const err = (await t.throwsAsync(
      unary((cb) => providers.updateProvider({ id, location: 'Nowhere', updateMask: ['no_such_field'] }, md(), cb)),
    )) as unknown as ServiceError;
    t.is(err.code, status.INVALID_ARGUMENT);
    t.is(decodeServiceError(err).field, 'updateMask');
    t.is((await o.api.get(`/api/v2/providers/${id}`)).body.location, 'Cambridge');
  } finally {
    providers.close();
  }
});

test('lists take page_size and page_token and answer next_page_token (REST limit, cursor, nextCursor), in reflection and on the wire', async (t) => {
  const requestType = await reflectMessage('scheduling.v1.ListProvidersRequest');
  const request = Object.fromEntries(requestType.field.map((f) => [f.name, f]));
  // A query-string integer is a number in the typed form (decimal text only in REST), with presence: 0 is a value.
  const requestOneofs = (requestType as unknown as { oneofDecl: { name: string }[] }).oneofDecl.map((o) => o.name);
  t.like(request.page_size, { type: 'TYPE_INT64', oneofIndex: requestOneofs.indexOf('_page_size') });
  t.true(requestOneofs.includes('_page_size'), requestOneofs.join(', '));
  t.like(request.page_token, { type: 'TYPE_STRING' });
  t.is(request.limit, undefined);
  t.is(request.cursor, undefined);
  const response = Object.fromEntries(
    (await reflectMessage('scheduling.v1.ListProvidersResponse')).field.map((f) => [f.name, f]),
  );
  t.like(response.provider_list, { type: 'TYPE_MESSAGE', typeName: 'ProviderList' });
  const list = Object.fromEntries((await reflectMessage('scheduling.v1.ProviderList')).field.map((f) => [f.name, f]));
  t.like(list.next_page_token, { type: 'TYPE_STRING' });
  t.is(list.next_cursor, undefined);
  const orgs = Object.fromEntries(
    (await reflectMessage('scheduling.v1.ListOrganizationsResponse')).field.map((f) => [f.name, f]),
  );
  t.like(orgs.next_page_token, { type: 'TYPE_STRING' });

  // Paging with page_size 2 and each answer's next_page_token walks every provider exactly once.
  const o = await newOrganization(svc, 'typed-paging');
  const created: string[] = [];
  for (let i = 1; i <= 5; i++)
    created.push(
      (await o.platform.post('/api/v2/providers', { externalId: `paging-${i}`, displayName: `Dr. Paging ${i}` })).body
        .id,
    );
  const providers = new ProviderServiceClient(svc.grpcTarget, credentials.createInsecure());
  try {
    const seen: string[] = [];
    const sizes: number[] = [];
    let pageToken: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const answer = await unary<any>((cb) => providers.listProviders({ pageSize: 2, pageToken }, bearer(o.key), cb));
      const page = answer.providerList;
      seen.push(...page.data.map((p: { id: string }) => p.id));
      sizes.push(page.data.length);
      t.is(page.total, 5);
      t.is(page.hasMore, page.nextPageToken !== undefined);
      pageToken = page.nextPageToken;
      if (pageToken === undefined) break;
    }
    t.deepEqual(sizes, [2, 2, 1]);
    t.is(new Set(seen).size, seen.length);
    t.deepEqual([...seen].sort(), [...created].sort());
    // The same limits as REST, refused on the REST field's name.
    const err = (await t.throwsAsync(
      unary((cb) => providers.listProviders({ pageSize: 501 }, bearer(o.key), cb)),
    )) as unknown as ServiceError;
    t.is(err.code, status.INVALID_ARGUMENT);
    t.is(decodeServiceError(err).field, 'limit');
  } finally {
    providers.close();
  }
});

test('an internal caller gets the v1 rules through CreateResolution (`v1_rules`) and the resolution v1 REST gives', async (t) => {
  // No `...V1` RPC: the v1 rules are a typed field of CreateResolution, and v1 constraints are its v2 lists.
  const request = await reflectMessage('scheduling.v1.CreateResolutionRequest');
  const fields = Object.fromEntries(request.field.map((f) => [f.name, f]));
  t.like(fields.v1_rules, { type: 'TYPE_BOOL' });
  t.false(Object.keys(ResolutionServiceClient.service).includes('createResolutionV1'));
  const o = await newOrganization(svc, 'typed-v1-rules');
  await providerWithService(
    o,
    { externalId: 'typed-v1-es', languageCodes: ['en', 'es'], modalityCodes: ['virtual'] },
    { title: 'Typed Lists Intake' },
  );
  const resolutions = new ResolutionServiceClient(svc.grpcTarget, credentials.createInsecure());
  const to = new Date(Date.parse(`${tomorrow()}T00:00:00Z`) + 7 * 86_400_000).toISOString().slice(0, 10);
  const typed = (constraints: Record<string, string[]>, v1Rules = true) =>
    unary<any>((cb) =>
      resolutions.createResolution(
        {
          serviceId: 'typed-lists-intake',
          v1Rules,
          constraints: Object.fromEntries(Object.entries(constraints).map(([k, anyOf]) => [k, { anyOf }])),
          dateRange: { fromDate: tomorrow(), toDate: to },
        },
        bearer(o.key),
        cb,
      ),
    ).then((r) => restOfResponse('CreateResolution', r));
  // REST takes one code as text or a list, under the v1 or the v2 name; the typed caller sends v2 lists.
  const rest = (constraints: Record<string, unknown>) =>
    o.api
      .post('/api/v1/resolutions', {
        service: 'typed-lists-intake',
        constraints,
        dateRange: { from: tomorrow(), to },
      })
      .then((r) => {
        t.is(r.status, 200, JSON.stringify(r.body));
        return r.body;
      });
  /** What two resolutions made at the same instant must share: outcome, and each option's provider and slot. */
  const outcome = (r: any) => ({
    status: r.status,
    options: (r.options ?? []).map((x: any) => ({ provider: x.provider.id, start: x.slot.start, rank: x.rank })),
  });
  try {
    // The v1 rules: the service by its slug, without an Idempotency-Key.
    const matching = await typed({ languageCodes: ['es', 'fr'], modalityCodes: ['virtual'] });
    t.is(matching.status, 'resolved');
    t.true(matching.options.length > 0);
    t.deepEqual(outcome(matching), outcome(await rest({ languages: ['es', 'fr'], modality: 'virtual' })));
    t.deepEqual(outcome(matching), outcome(await rest({ languages: 'es', modality: ['virtual'] })));
    const none = await typed({ languageCodes: ['fr'] });
    t.is(none.status, 'zero_results');
    t.deepEqual(outcome(none), outcome(await rest({ languageCodes: 'fr' })));
    // Without them, the v2 rules: the key is required (and then a slug is no service id).
    const v2 = (await unary((cb) =>
      resolutions.createResolution(
        { serviceId: 'typed-lists-intake', dateRange: { fromDate: tomorrow(), toDate: to } },
        bearer(o.key),
        cb,
      ),
    ).catch((err: unknown) => err)) as ServiceError;
    t.is(v2.code, status.INVALID_ARGUMENT);
    t.is(decodeServiceError(v2).code, 'IDEMPOTENCY_KEY_REQUIRED');
    const slug = (await unary((cb) =>
      resolutions.createResolution(
        { serviceId: 'typed-lists-intake', dateRange: { fromDate: tomorrow(), toDate: to } },
        bearer(o.key, { 'idempotency-key': randomUUID() }),
        cb,
      ),
    ).catch((err: unknown) => err)) as ServiceError;
    t.is(decodeServiceError(slug).code, 'SERVICE_NOT_FOUND');
    t.is(decodeServiceError(slug).field, 'serviceId');
  } finally {
    resolutions.close();
  }
});
