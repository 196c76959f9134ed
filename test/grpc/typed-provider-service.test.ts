import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, status, type ServiceError as GrpcError } from '@grpc/grpc-js';
import {
  ProviderServiceClient,
  type CreateProviderResponse,
  type DeleteProviderResponse,
  type GetProfessionalResponse,
  type GetProviderResponse,
  type ListProfessionalsResponse,
  type ListProvidersResponse,
  type UpdateProviderResponse,
} from '../../src/gen/scheduling/v1/provider_service.js';
import { LicenseRecordInput_Status, ProviderStatus } from '../../src/gen/scheduling/v1/resources.js';
import { providerRoutes } from '../../src/contract/routes/provider-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { restJsonOf } from '../../src/gateway/rest-json-of.js';
import type { ProviderView } from '../../src/persistence/provider-repository.js';
import { professionalMessage, providerMessage } from '../../src/api/messages/provider-message.js';
import { getProvider } from '../../src/api/provider-service/get-provider.js';
import { createProvider } from '../../src/api/provider-service/create-provider.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, errorInfoOf, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * ProviderService on its typed messages (src/api/provider-service/): typed answers, refusals with the contract's code as
 * ErrorInfo reason and the REST field, implementations callable with their deps alone, and the explicit answer mapping
 * (src/api/messages/provider-message.ts) equal to the message the REST answer was carried in before the move.
 */

let svc: TestService;
let providers: ProviderServiceClient;
let orgId: string;
let orgKey: string;
let otherOrgProviderId: string;
test.before(async () => {
  svc = await startTestService();
  providers = new ProviderServiceClient(svc.grpcTarget, credentials.createInsecure());
  const platform = client(svc.url, svc.platformKey);
  const newOrg = async () =>
    (await platform.post('/api/v2/organizations', { externalId: `tps-${randomUUID().slice(0, 8)}`, name: 'Typed' }))
      .body.id as string;
  orgId = await newOrg();
  orgKey = (await platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: orgId, name: 'k' }))
    .body.key as string;
  const other = await newOrg();
  const p = await client(svc.url, svc.platformKey, { 'service-organization-id': other }).post('/api/v2/providers', {
    externalId: 'elsewhere',
    displayName: 'Dr. Elsewhere',
  });
  otherOrgProviderId = p.body.id as string;
});
test.after.always(async () => {
  providers?.close();
  await svc?.stop();
});

const metadata = (key = svc.platformKey) =>
  key === svc.platformKey ? bearer(key, { 'service-organization-id': orgId }) : bearer(key);

type Method =
  | 'createProvider'
  | 'listProviders'
  | 'getProvider'
  | 'updateProvider'
  | 'deleteProvider'
  | 'listProfessionals'
  | 'getProfessional';

function unary<Res>(method: Method, req: object, key?: string): Promise<Res> {
  return unaryCall(providers, method, req, metadata(key));
}

test.serial(
  'CreateProvider, GetProvider, UpdateProvider, ListProviders and DeleteProvider on typed messages',
  async (t) => {
    const created = await unary<CreateProviderResponse>('createProvider', {
      externalId: 'typed-1',
      displayName: 'Dr. Typed',
      providerStatus: ProviderStatus.PROVIDER_STATUS_ACTIVE,
      languageCodes: ['EN', 'en', 'fr'],
      modalityCodes: ['virtual'],
      licenseRecords: [
        {
          licenseTypeCode: 'lcsw',
          regionCode: 'us-ca',
          status: LicenseRecordInput_Status.STATUS_ACTIVE,
          expiresAt: '2030-01-31',
          verifiedAt: new Date('2026-01-02T03:04:05.000Z'),
        },
      ],
      bio: 'Hello',
      panelCapacity: 10,
    });
    const p = created.provider!;
    t.like(p, {
      organizationId: orgId,
      externalId: 'typed-1',
      providerStatus: ProviderStatus.PROVIDER_STATUS_ACTIVE,
      searchable: true,
      languageCodes: ['en', 'fr'],
      bio: 'Hello',
      panelCapacity: 10,
      profileVersion: 1,
    });
    t.deepEqual(p.licenseRecords, [
      {
        licenseTypeCode: 'lcsw',
        regionCode: 'US-CA',
        status: 'active',
        expiresAt: '2030-01-31',
        verifiedAt: '2026-01-02T03:04:05.000Z',
      },
    ]);
    t.is(p.email, undefined, 'a null is an unset field');
    t.true(p.createdAt instanceof Date);

    const read = await unary<GetProviderResponse>('getProvider', { id: p.id });
    t.deepEqual(read.provider, p);

    // The mask names what changes: bio is cleared (named, unset), the status changes, the display name is kept.
    const updated = await unary<UpdateProviderResponse>('updateProvider', {
      id: p.id,
      updateMask: ['bio', 'provider_status'],
      providerStatus: ProviderStatus.PROVIDER_STATUS_SUSPENDED,
      displayName: 'Not named, not changed',
    });
    t.like(updated.provider, {
      providerStatus: ProviderStatus.PROVIDER_STATUS_SUSPENDED,
      displayName: 'Dr. Typed',
      bio: undefined,
      profileVersion: 2,
    });
    // Without a mask, the fields set change and the others are kept.
    const renamed = await unary<UpdateProviderResponse>('updateProvider', { id: p.id, displayName: 'Dr. Renamed' });
    t.like(renamed.provider, { displayName: 'Dr. Renamed', panelCapacity: 10, profileVersion: 3 });
    const same = await unary<UpdateProviderResponse>('updateProvider', { id: p.id, displayName: 'Dr. Renamed' });
    t.is(same.provider!.profileVersion, 3, 'an update that changes nothing writes nothing');

    await unary<CreateProviderResponse>('createProvider', { externalId: 'typed-2', displayName: 'Dr. Two' });
    const suspended = await unary<ListProvidersResponse>('listProviders', {
      providerStatus: ProviderStatus.PROVIDER_STATUS_SUSPENDED,
    });
    t.deepEqual(
      suspended.providerList!.data!.map((x) => x.externalId),
      ['typed-1'],
    );
    t.is(suspended.providerList!.total, 1);
    const first = await unary<ListProvidersResponse>('listProviders', { pageSize: 1 });
    t.is(first.providerList!.total, 2);
    t.true(first.providerList!.hasMore);
    const next = await unary<ListProvidersResponse>('listProviders', {
      pageSize: 1,
      pageToken: first.providerList!.nextPageToken,
    });
    t.false(next.providerList!.hasMore);
    t.is(next.providerList!.nextPageToken, undefined);
    t.notDeepEqual(next.providerList!.data![0]!.id, first.providerList!.data![0]!.id);
    const french = await unary<ListProvidersResponse>('listProviders', { language: 'FR' });
    t.deepEqual(
      french.providerList!.data!.map((x) => x.externalId),
      ['typed-1'],
      'a v1 filter name, its code normalized',
    );

    const v1List = await unary<ListProfessionalsResponse>('listProfessionals', { specialty: undefined, pageSize: 500 });
    t.is(v1List.total, 2);
    const v1 = await unary<GetProfessionalResponse>('getProfessional', { id: p.id });
    t.like(v1.professional, { id: p.id, name: 'Dr. Renamed', status: 'suspended', languages: ['en', 'fr'] });
    t.deepEqual(
      v1List.data!.find((x) => x.id === p.id),
      v1.professional,
    );

    const deleted = await unary<DeleteProviderResponse>('deleteProvider', { id: p.id });
    t.like(deleted.provider, { providerStatus: ProviderStatus.PROVIDER_STATUS_INACTIVE, searchable: false });
  },
);

const refusals: Refusal[] = [
  {
    name: 'a create without its required externalId',
    call: () => unary('createProvider', { displayName: 'Dr. No Id' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'externalId',
  },
  {
    name: 'a license record region that is no region code, named by its path',
    call: () =>
      unary('createProvider', {
        externalId: 'bad-region',
        displayName: 'Dr. Region',
        licenseRecords: [
          { licenseTypeCode: 'lcsw', regionCode: '??', status: LicenseRecordInput_Status.STATUS_ACTIVE },
        ],
      }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'licenseRecords.0.regionCode',
  },
  {
    name: 'a create with an organization key',
    call: () => unary('createProvider', { externalId: 'org-key', displayName: 'Dr. Org' }, orgKey),
    code: status.PERMISSION_DENIED,
    reason: 'PLATFORM_KEY_REQUIRED',
  },
  {
    name: 'an update mask naming no field of the update',
    call: () => unary('updateProvider', { id: otherOrgProviderId, updateMask: ['organization_id'] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'updateMask',
  },
  {
    name: 'an unknown provider',
    call: () => unary('getProvider', { id: 'prv_missing' }),
    code: status.NOT_FOUND,
    reason: 'PROVIDER_NOT_FOUND',
  },
  {
    name: 'another organization’s provider, as v1',
    call: () => unary('getProfessional', { id: otherOrgProviderId }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
  {
    name: 'another organization’s provider, to delete',
    call: () => unary('deleteProvider', { id: otherOrgProviderId }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
  {
    name: 'no provider id',
    call: () => unary('getProvider', { id: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'id',
  },
  {
    name: 'a language filter that is no language code',
    call: () => unary('listProviders', { languageCodes: 'klingon!' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'languageCodes',
  },
  {
    name: 'a page size out of range, named as REST names it',
    call: () => unary('listProfessionals', { pageSize: 501 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
  {
    name: 'a page token this service did not issue',
    call: () => unary('listProviders', { pageToken: '!!!' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'cursor',
  },
];
assertRefusals(test, 'a typed ProviderService request is refused with ErrorInfo', refusals);

test.serial(
  'an update naming a field that cannot be cleared, left unset, is refused as REST refuses its null',
  async (t) => {
    const c = await unary<CreateProviderResponse>('createProvider', { externalId: 'typed-null', displayName: 'Dr. N' });
    const err = await t.throwsAsync<GrpcError>(() =>
      unary('updateProvider', { id: c.provider!.id, updateMask: ['display_name', 'searchable'] }),
    );
    const rest = await client(svc.url, svc.platformKey, { 'service-organization-id': orgId }).patch(
      `/api/v2/providers/${c.provider!.id}`,
      { displayName: null, searchable: null },
    );
    t.is(rest.status, 400);
    t.is(errorInfoOf(err!).metadata?.field, rest.body.error.field);
    t.is(rest.body.error.field, 'displayName');
    t.is(err!.details, rest.body.error.message);
    const dup = await t.throwsAsync<GrpcError>(() =>
      unary('updateProvider', { id: c.provider!.id, externalId: 'typed-1' }),
    );
    t.like(errorInfoOf(dup!), { reason: 'DUPLICATE_EXTERNAL_ID', metadata: { field: 'externalId' } });
  },
);

test.serial('an implementation is a function of its dependencies, the caller and the typed request', async (t) => {
  const { db, clock } = svc.service.deps;
  const caller = { requestId: 'req_direct', organizationId: orgId } as Caller;
  const listed = await unary<ListProvidersResponse>('listProviders', { externalId: 'typed-2' });
  const read = await getProvider({ db }, caller, { id: listed.providerList!.data![0]!.id });
  t.deepEqual(read.provider, listed.providerList!.data![0]);
  const err = await t.throwsAsync(() => getProvider({ db }, caller, { id: '' }));
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'id' });
  const refused = await t.throwsAsync(() =>
    createProvider({ db, clock }, caller, { externalId: 'direct', displayName: 'Dr. Direct' }),
  );
  t.like(refused, { code: 'PLATFORM_KEY_REQUIRED' }, 'an organization key creates no provider');
});

test.serial('REST answers what the typed RPCs answer: a read and a write', async (t) => {
  const rest = client(svc.url, svc.platformKey, { 'service-organization-id': orgId });
  const route = (rpc: string) => providerRoutes.find((r) => r.rpc === rpc)!;
  const made = await rest.post('/api/v2/providers', {
    externalId: 'rest-1',
    displayName: 'Dr. Rest',
    specialtyCodes: ['anxiety'],
    acceptsNewClients: true,
  });
  t.is(made.status, 200);
  const typedRead = await unary<GetProviderResponse>('getProvider', { id: made.body.id });
  t.deepEqual(JSON.parse(restJsonOf(route('GetProvider'), typedRead as Record<string, unknown>)), made.body);
  const v1 = await rest.get(`/api/v1/professionals/${made.body.id}`);
  const typedV1 = await unary<GetProfessionalResponse>('getProfessional', { id: made.body.id });
  t.deepEqual(JSON.parse(restJsonOf(route('GetProfessional'), typedV1 as Record<string, unknown>)), v1.body);

  const patched = await rest.patch(`/api/v2/providers/${made.body.id}`, { acceptsNewClients: null, location: 'Paris' });
  t.is(patched.status, 200);
  const twin = await unary<CreateProviderResponse>('createProvider', {
    externalId: 'rest-2',
    displayName: 'Dr. Rest',
    specialtyCodes: ['anxiety'],
    acceptsNewClients: true,
  });
  const typedPatch = await unary<UpdateProviderResponse>('updateProvider', {
    id: twin.provider!.id,
    updateMask: ['accepts_new_clients', 'location'],
    location: 'Paris',
  });
  const typedJson = JSON.parse(restJsonOf(route('UpdateProvider'), typedPatch as Record<string, unknown>));
  const differ = ['id', 'externalId', 'createdAt', 'updatedAt'];
  const without = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => !differ.includes(k)));
  t.deepEqual(without(typedJson), without(patched.body));
  t.deepEqual(Object.keys(typedJson), Object.keys(patched.body), 'the same members in the same order');
  t.is(patched.body.acceptsNewClients, null);
  t.is(patched.body.profileVersion, 2);
});

test('the answer messages are the ones the REST answers were carried in before the move', (t) => {
  const route = (rpc: string) => providerRoutes.find((r) => r.rpc === rpc)!;
  const full: ProviderView = {
    id: 'prv_1',
    organizationId: 'org_1',
    externalId: 'x',
    displayName: 'Dr. Full',
    email: 'a@example.com',
    status: 'suspended',
    searchable: false,
    professionCode: 'psychologist',
    specialtyCodes: ['anxiety', 'grief'],
    languageCodes: ['en'],
    modalityCodes: ['virtual', 'in_person'],
    serviceRegionCodes: ['US-CA'],
    insurancePlanCodes: ['aetna'],
    ageGroupCodes: ['adult'],
    licenseRecords: [
      { licenseTypeCode: 'lcsw', regionCode: 'US-CA', status: 'active', expiresAt: '2030-01-01' },
      { licenseTypeCode: 'psy', regionCode: 'US-NY', status: 'pending', verifiedAt: '2026-01-02T03:04:05.000Z' },
    ],
    acceptsNewClients: false,
    timezone: 'America/Los_Angeles',
    bio: 'Bio',
    username: 'full',
    location: 'LA',
    panelCapacity: 0,
    panelCurrentCount: 3,
    profileVersion: 7,
    createdAt: '2026-03-02T12:00:00.000Z',
    updatedAt: '2026-03-03T12:00:00.000Z',
  };
  const empty: ProviderView = {
    ...full,
    email: null,
    status: 'active',
    professionCode: null,
    specialtyCodes: [],
    languageCodes: [],
    modalityCodes: [],
    serviceRegionCodes: [],
    insurancePlanCodes: [],
    ageGroupCodes: [],
    licenseRecords: [],
    acceptsNewClients: null,
    timezone: null,
    bio: null,
    username: null,
    location: null,
    panelCapacity: null,
    panelCurrentCount: null,
  };
  for (const view of [full, empty]) {
    t.deepEqual({ provider: providerMessage(view) }, responseMessageOf(route('GetProvider'), view));
    const v1 = professionalMessage(view);
    t.deepEqual({ professional: v1 }, responseMessageOf(route('GetProfessional'), professionalBeforeTheMove(view)));
    t.deepEqual(
      JSON.parse(restJsonOf(route('GetProfessional'), { professional: v1 })),
      professionalBeforeTheMove(view),
    );
    t.deepEqual(JSON.parse(restJsonOf(route('GetProvider'), { provider: providerMessage(view) })), view);
  }
});

/** The v1 professional view as the REST answer was built before the move (application/professional-v1-view.ts). */
function professionalBeforeTheMove(p: ProviderView) {
  return {
    id: p.id,
    externalId: p.externalId,
    name: p.displayName,
    email: p.email,
    username: p.username,
    status: p.status,
    searchable: p.searchable,
    profession: p.professionCode,
    specialty: p.specialtyCodes,
    languages: p.languageCodes,
    modality: p.modalityCodes,
    insurance: p.insurancePlanCodes,
    serviceRegions: p.serviceRegionCodes,
    ageGroups: p.ageGroupCodes,
    acceptsNewClients: p.acceptsNewClients,
    timezone: p.timezone,
    bio: p.bio,
    location: p.location,
    profileVersion: p.profileVersion,
  };
}
