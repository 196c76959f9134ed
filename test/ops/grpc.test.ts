import test from 'ava';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import {
  credentials,
  loadPackageDefinition,
  makeGenericClientConstructor,
  Metadata,
  status,
  type ServiceError,
} from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { service as healthService } from 'grpc-health-check';
import {
  OrganizationServiceClient,
  type CreateOrganizationResponse,
  type GetOrganizationResponse,
} from '../../src/gen/scheduling/v1/organization_service.js';
import { AuditServiceClient, type ListAuditEventsResponse } from '../../src/gen/scheduling/v1/audit_service.js';
import { restOfResponse } from '../helpers/typed-messages.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { decodeServiceError, errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';
import { bearer, callbackCall } from '../helpers/typed-calls.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const unary = callbackCall;

test('gRPC health checking answers SERVING for the server and each service', async (t) => {
  const Health = makeGenericClientConstructor(healthService as never, 'Health');
  const health = new Health(svc.grpcTarget, credentials.createInsecure()) as any;
  try {
    for (const service of ['', 'scheduling.v1.OrganizationService', 'scheduling.v1.AuditService']) {
      const res = await unary<{ status: string | number }>((cb) => health.check({ service }, cb));
      t.true(res.status === 'SERVING' || res.status === 1, service || '(server)');
    }
    const unknown = await t.throwsAsync(unary((cb) => health.check({ service: 'no.such.Service' }, cb)));
    t.is((unknown as unknown as ServiceError).code, status.NOT_FOUND);
  } finally {
    health.close();
  }
});

test('server reflection lists the services and serves their descriptors', async (t) => {
  const require = createRequire(import.meta.url);
  const protoRoot = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto');
  const def = protoLoader.loadSync('grpc/reflection/v1/reflection.proto', { includeDirs: [protoRoot], keepCase: true });
  const pkg = loadPackageDefinition(def) as any;
  const reflection = new pkg.grpc.reflection.v1.ServerReflection(svc.grpcTarget, credentials.createInsecure());
  try {
    const ask = (req: object) =>
      new Promise<any>((resolve, reject) => {
        const call = reflection.ServerReflectionInfo();
        call.on('data', (msg: unknown) => {
          resolve(msg);
          call.end();
        });
        call.on('error', reject);
        call.write(req);
      });
    const listed = await ask({ list_services: '' });
    const names = (listed.list_services_response.service as { name: string }[]).map((s) => s.name);
    t.true(names.includes('scheduling.v1.OrganizationService'), names.join(', '));
    t.true(names.includes('scheduling.v1.AuditService'));
    const file = await ask({ file_containing_symbol: 'scheduling.v1.OrganizationService' });
    const protos = file.file_descriptor_response.file_descriptor_proto as Buffer[];
    t.true(protos.length >= 1);
    t.true(protos.some((b) => Buffer.from(b).toString('latin1').includes('OrganizationService')));
  } finally {
    reflection.close();
  }
});

test('an internal service calls the gRPC API directly with a key in metadata, in typed messages', async (t) => {
  const orgs = new OrganizationServiceClient(svc.grpcTarget, credentials.createInsecure());
  const audit = new AuditServiceClient(svc.grpcTarget, credentials.createInsecure());
  try {
    const created = await unary<CreateOrganizationResponse>((cb) =>
      orgs.createOrganization({ externalId: 'grpc-direct', name: 'Via gRPC' }, bearer(svc.platformKey), cb),
    );
    t.like(created.organization, { externalId: 'grpc-direct', name: 'Via gRPC' });
    const id = created.organization!.id;
    const read = await unary<GetOrganizationResponse>((cb) =>
      orgs.getOrganization({ id }, bearer(svc.platformKey), cb),
    );
    t.deepEqual(read.organization, created.organization);
    // The same data through the REST door.
    t.deepEqual(
      (await client(svc.url, svc.platformKey).get(`/api/v2/organizations/${id}`)).body,
      restOfResponse('GetOrganization', read),
    );
    // The write made through gRPC is audited like any other.
    const md = bearer(svc.platformKey);
    md.set('service-organization-id', id!);
    const events = await unary<ListAuditEventsResponse>((cb) =>
      audit.listAuditEvents({ action: 'organization.create' }, md, cb),
    );
    t.is(events.data!.length, 1);
    t.is(events.data![0]!.resourceId, id);

    const dup = await t.throwsAsync(
      unary((cb) => orgs.createOrganization({ externalId: 'grpc-direct', name: 'Again' }, bearer(svc.platformKey), cb)),
    );
    t.is((dup as unknown as ServiceError).code, status.ABORTED);
    t.is(errorCodeOfTrailers((dup as unknown as ServiceError).metadata), 'DUPLICATE_EXTERNAL_ID');
    // Meaning is judged behind the door, for every caller: an empty name is the contract's error on `name`.
    const empty = await t.throwsAsync(
      unary((cb) => orgs.createOrganization({ externalId: 'grpc-empty', name: '' }, bearer(svc.platformKey), cb)),
    );
    t.is((empty as unknown as ServiceError).code, status.INVALID_ARGUMENT);
    t.is(errorCodeOfTrailers((empty as unknown as ServiceError).metadata), 'VALIDATION_ERROR');
    t.is(decodeServiceError(empty as unknown as ServiceError).field, 'name');
  } finally {
    orgs.close();
    audit.close();
  }
});

test('a gRPC call without a valid key is UNAUTHENTICATED with the error code in trailers', async (t) => {
  const orgs = new OrganizationServiceClient(svc.grpcTarget, credentials.createInsecure());
  try {
    const cases: { name: string; md: Metadata }[] = [
      { name: 'no key', md: new Metadata() },
      { name: 'malformed key', md: bearer('not-a-key') },
      { name: 'unknown key', md: bearer(`service_test_${'x'.repeat(40)}`) },
    ];
    for (const c of cases) {
      const err = (await t.throwsAsync(
        unary((cb) => orgs.listOrganizations({}, c.md, cb)),
        undefined,
        c.name,
      )) as unknown as ServiceError;
      t.is(err.code, status.UNAUTHENTICATED, c.name);
      t.is(errorCodeOfTrailers(err.metadata), 'UNAUTHENTICATED', c.name);
    }
  } finally {
    orgs.close();
  }
});
