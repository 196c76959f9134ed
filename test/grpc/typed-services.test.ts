import test from 'ava';
import { credentials, status } from '@grpc/grpc-js';
import {
  OrganizationServiceClient,
  type CreateOrganizationResponse,
  type GetOrganizationResponse,
  type ListOrganizationsResponse,
  type UpdateOrganizationResponse,
} from '../../src/gen/scheduling/v1/organization_service.js';
import {
  ApiKeyServiceClient,
  type CreateApiKeyResponse,
  type GetCallerResponse,
  type ListApiKeysResponse,
  type RevokeApiKeyResponse,
} from '../../src/gen/scheduling/v1/api_key_service.js';
import { KeyType, Plan } from '../../src/gen/scheduling/v1/resources.js';
import { getOrganization } from '../../src/api/organization-service/get-organization.js';
import { createOrganization } from '../../src/api/organization-service/create-organization.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { metricSample, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * The typed services (src/api/): internal callers send typed requests and get typed answers, refusals carry the
 * contract's code as ErrorInfo reason and the field; the gateway refuses at its edge what a request message cannot carry.
 */

let svc: TestService;
let orgs: OrganizationServiceClient;
let keys: ApiKeyServiceClient;
test.before(async () => {
  svc = await startTestService({ env: { METRICS_TOKEN: TEST_METRICS_TOKEN } });
  orgs = new OrganizationServiceClient(svc.grpcTarget, credentials.createInsecure());
  keys = new ApiKeyServiceClient(svc.grpcTarget, credentials.createInsecure());
});
test.after.always(async () => {
  orgs?.close();
  keys?.close();
  await svc?.stop();
});

/** Calls a unary method of a generated client and resolves with its typed answer, or rejects with its gRPC error. */
function unary<Res>(self: object, method: string, req: object, key = svc.platformKey): Promise<Res> {
  return unaryCall(self, method, req, bearer(key));
}

test('CreateOrganization, GetOrganization, UpdateOrganization and ListOrganizations on typed messages', async (t) => {
  const created = await unary<CreateOrganizationResponse>(orgs, 'createOrganization', {
    externalId: 'typed-svc-1',
    name: 'Typed',
    settings: { plan: Plan.PLAN_SCALE, waitlistOfferTtlSeconds: 600 },
  });
  const org = created.organization!;
  t.regex(org.id!, /^org_/);
  t.is(org.settings?.plan, Plan.PLAN_SCALE);
  t.is(org.settings?.allowUnverifiable, false);
  t.is(org.settings?.timezone, undefined, 'no timezone is an unset field');
  t.is(org.settings?.waitlistOfferTtlSeconds, 600);
  t.true(org.createdAt instanceof Date);

  const read = await unary<GetOrganizationResponse>(orgs, 'getOrganization', { id: org.id });
  t.deepEqual(read.organization, org);

  const renamed = await unary<UpdateOrganizationResponse>(orgs, 'updateOrganization', {
    id: org.id,
    name: 'Renamed',
    settings: { timezone: 'Europe/Paris' },
    updateMask: ['name', 'settings'],
  });
  t.is(renamed.organization?.name, 'Renamed');
  t.like(renamed.organization?.settings, { plan: Plan.PLAN_SCALE, timezone: 'Europe/Paris' });

  const page = await unary<ListOrganizationsResponse>(orgs, 'listOrganizations', { pageSize: 1 });
  t.is(page.data?.length, 1);
  t.true(page.hasMore);
  const next = await unary<ListOrganizationsResponse>(orgs, 'listOrganizations', {
    pageSize: 500,
    pageToken: page.nextPageToken,
  });
  t.false(next.hasMore);
  t.is(next.nextPageToken, undefined);
  t.true(next.data!.some((o) => o.id === org.id));
});

test('CreateApiKey, GetCaller, ListApiKeys and RevokeApiKey on typed messages', async (t) => {
  const org = (
    await unary<CreateOrganizationResponse>(orgs, 'createOrganization', { externalId: 'typed-svc-keys', name: 'Keys' })
  ).organization!;
  const created = (
    await unary<CreateApiKeyResponse>(keys, 'createApiKey', {
      keyType: KeyType.KEY_TYPE_ORGANIZATION_TEST,
      organizationId: org.id,
      name: 'desk',
      expiresAt: new Date(svc.clock().getTime() + 86_400_000),
    })
  ).createdApiKey!;
  t.regex(created.key!, /^service_test_/);
  t.is(created.type, 'organization_test');
  t.true(created.expiresAt instanceof Date);
  t.is(created.revokedAt, undefined);

  const who = (await unary<GetCallerResponse>(keys, 'getCaller', {}, created.key)).callerIdentity!;
  t.is(who.keyId, created.id);
  t.is(who.keyType, KeyType.KEY_TYPE_ORGANIZATION_TEST);
  t.is(who.organizationId, org.id);
  t.is(who.defaultOrganizationId, undefined, 'an organization key has no default organization');
  t.is(who.organization?.name, 'Keys');

  const listed = await unary<ListApiKeysResponse>(keys, 'listApiKeys', { pageSize: 500 });
  const mine = listed.data!.find((k) => k.id === created.id);
  t.truthy(mine);
  t.false('key' in mine!, 'a listed key has no secret');

  const revoked = (await unary<RevokeApiKeyResponse>(keys, 'revokeApiKey', { id: created.id })).apiKey!;
  t.true(revoked.revokedAt instanceof Date);
});

const refusals: Refusal[] = [
  {
    name: 'CreateOrganization without a name',
    call: () => unary<CreateOrganizationResponse>(orgs, 'createOrganization', { externalId: 'typed-x' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'name',
  },
  {
    name: 'an offer lifetime out of range',
    call: () =>
      unary<CreateOrganizationResponse>(orgs, 'createOrganization', {
        externalId: 'typed-y',
        name: 'Y',
        settings: { waitlistOfferTtlSeconds: 59 },
      }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'settings.waitlistOfferTtlSeconds',
  },
  {
    name: 'a page size out of range, named as REST names it',
    call: () => unary<ListOrganizationsResponse>(orgs, 'listOrganizations', { pageSize: 501 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
  {
    name: 'an update mask naming no field',
    call: () => unary<UpdateOrganizationResponse>(orgs, 'updateOrganization', { id: 'org_x', updateMask: ['plan'] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'updateMask',
  },
  {
    name: 'a key type not given',
    call: () => unary<CreateApiKeyResponse>(keys, 'createApiKey', { name: 'no type' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'type',
  },
  {
    name: 'U+0000 in a typed string',
    call: () => unary<GetOrganizationResponse>(orgs, 'getOrganization', { id: 'org_\u0000' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'id',
  },
  {
    name: 'a live key asked with a test key',
    call: () =>
      unary<CreateApiKeyResponse>(keys, 'createApiKey', {
        keyType: KeyType.KEY_TYPE_PLATFORM_LIVE,
        name: 'live',
      }),
    code: status.PERMISSION_DENIED,
    reason: 'LIVE_KEY_REQUIRED',
    field: 'type',
  },
  {
    name: 'an unknown organization',
    call: () => unary<GetOrganizationResponse>(orgs, 'getOrganization', { id: 'org_missing' }),
    code: status.NOT_FOUND,
    reason: 'ORGANIZATION_NOT_FOUND',
  },
];
assertRefusals(test, 'a typed request is refused with ErrorInfo', refusals);

test('an implementation is a function of its dependencies, the caller and the typed request', async (t) => {
  const { db, organizations, clock } = svc.service.deps;
  const caller: Caller = {
    requestId: 'req_typed_direct',
    keyId: 'key_direct',
    keyType: 'platform_test',
    mode: 'test',
    platformId: (await svc.service.deps.db.query(`SELECT id FROM platforms LIMIT 1`)).rows[0].id,
    organizationId: '',
    isPlatformKey: true,
    viaOrganizationHeader: false,
  };
  const created = await createOrganization({ db, clock }, caller, { externalId: 'typed-direct', name: 'Direct' });
  const read = await getOrganization({ organizations }, caller, { id: created.organization!.id });
  t.deepEqual(read.organization, created.organization);
  const err = await t.throwsAsync(() => getOrganization({ organizations }, caller, { id: '' }));
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'id' });
});

test.serial(
  'the gateway refuses at its edge what the request message cannot carry: the RPC is never called',
  async (t) => {
    const platform = client(svc.url, svc.platformKey);
    const sample = (method: string, outcome: string) =>
      `scheduling_rpc_duration_seconds_count{service="OrganizationService",method="${method}",outcome="${outcome}"}`;
    const count = async (s: string) => (await metricSample(svc.url, s, TEST_METRICS_TOKEN)) ?? 0;
    const before = {
      create: await count(sample('CreateOrganization', 'VALIDATION_ERROR')),
      list: await count(sample('ListOrganizations', 'VALIDATION_ERROR')),
    };

    const bad = await platform.post('/api/v2/organizations', { externalId: 7, name: 'x', settings: { plan: 'gold' } });
    t.is(bad.status, 400);
    t.is(bad.body.error.code, 'VALIDATION_ERROR');
    t.is(bad.body.error.field, 'externalId');
    t.deepEqual(
      bad.body.error.details.map((d: { field: string }) => d.field),
      ['externalId', 'settings.plan'],
    );
    t.truthy(bad.headers.get('ratelimit-limit'), 'the refusal is counted against the key like any call');
    const text = await platform.get('/api/v2/organizations?limit=ten');
    t.is(text.status, 400);
    t.is(text.body.error.field, 'limit');
    const noKey = await client(svc.url).get('/api/v2/organizations?limit=ten');
    t.is(noKey.status, 401, 'a request without a key is judged on its key first');

    t.is(await count(sample('CreateOrganization', 'VALIDATION_ERROR')), before.create, 'CreateOrganization not called');
    t.is(await count(sample('ListOrganizations', 'VALIDATION_ERROR')), before.list, 'ListOrganizations not called');

    // A range is the implementation's to judge: such a request is the RPC's, refused behind the door.
    const range = await platform.get('/api/v2/organizations?limit=501');
    t.is(range.status, 400);
    t.is(range.body.error.field, 'limit');
    t.is(await count(sample('ListOrganizations', 'VALIDATION_ERROR')), before.list + 1);
  },
);
