import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, status } from '@grpc/grpc-js';
import {
  ImportServiceClient,
  type CreateProviderImportResponse,
  type GetProviderImportResponse,
  type ListProviderImportsResponse,
} from '../../src/gen/scheduling/v1/import_service.js';
import {
  ImportMode,
  ImportRowOutcome_Outcome,
  ProviderImport_Status,
  type ProviderImport,
} from '../../src/gen/scheduling/v1/resources.js';
import { providerImportRoutes } from '../../src/contract/routes/provider-import-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { createProviderImport } from '../../src/api/import-service/create-provider-import.js';
import { listProviderImports } from '../../src/api/import-service/list-provider-imports.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * ImportService on its typed messages (src/api/import-service/): rows carried as free-form values and judged one by
 * one by the job (a bad row, even one that is no object, is listed in `errors` and refuses nothing), refusals with the
 * contract's code as ErrorInfo reason and the field as REST names it, an implementation called with its deps alone,
 * and REST answers equal to the typed ones.
 */

let svc: TestService;
let imports: ImportServiceClient;
let org: { id: string; platformId: string };
let orgKey: string;
test.before(async () => {
  svc = await startTestService();
  imports = new ImportServiceClient(svc.grpcTarget, credentials.createInsecure());
  const p = client(svc.url, svc.platformKey);
  org = (await p.post('/api/v2/organizations', { externalId: `tis-${randomUUID().slice(0, 8)}`, name: 'Imports' }))
    .body;
  orgKey = (await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'k' })).body
    .key;
});
test.after.always(async () => {
  imports?.close();
  await svc?.stop();
});

/** Metadata of a call: the platform key acting in the test organization, or another key alone. */
const metadataOf = (key?: string) =>
  key === undefined ? bearer(svc.platformKey, { 'service-organization-id': org.id }) : bearer(key);

function unary<Res>(method: string, req: object, key?: string): Promise<Res> {
  return unaryCall(imports, method, req, metadataOf(key));
}

const route = (rpc: string) => providerImportRoutes.find((r) => r.rpc === rpc)!;
const rest = () => client(svc.url, svc.platformKey, { 'service-organization-id': org.id });

/** Polls an import over typed calls until the background worker has finished it. */
async function finished(importId: string): Promise<ProviderImport> {
  for (let i = 0; i < 200; i++) {
    const job = (await unary<GetProviderImportResponse>('getProviderImport', { importId })).providerImport!;
    if (job.status === ProviderImport_Status.STATUS_COMPLETED || job.status === ProviderImport_Status.STATUS_FAILED)
      return job;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('import did not finish');
}

test.serial('typed rows are judged one by one by the job: bad rows are listed, the others imported', async (t) => {
  await rest().post('/api/v2/providers', { externalId: 'keep-langs', displayName: 'Dr. Keep', languageCodes: ['en'] });
  await rest().post('/api/v2/providers', {
    externalId: 'clear-langs',
    displayName: 'Dr. Clear',
    languageCodes: ['en'],
  });
  const accepted = (
    await unary<CreateProviderImportResponse>('createProviderImport', {
      importMode: ImportMode.IMPORT_MODE_UPSERT,
      providerRowValues: [
        { externalId: 'typed-1', displayName: 'Dr. Typed' },
        7,
        { externalId: 'typed-bad', displayName: 'Dr. Bad', languageCodes: ['???'] },
        { externalId: 'keep-langs' },
        { externalId: 'clear-langs', languageCodes: [] },
        null,
      ],
    })
  ).providerImportAccepted!;
  t.like(accepted, { status: 'validating', dryRun: false, importMode: ImportMode.IMPORT_MODE_UPSERT });
  const job = await finished(accepted.importId!);
  t.like(job.summary, { received: 6, created: 1, updated: 1, unchanged: 1, invalid: 3 });
  t.deepEqual(
    job.errors!.map((e) => [e.row, e.code]),
    [
      [1, 'VALIDATION_ERROR'],
      [2, 'VALIDATION_ERROR'],
      [5, 'VALIDATION_ERROR'],
    ],
  );
  t.deepEqual(
    job.rows!.map((r) => r.outcome),
    [
      ImportRowOutcome_Outcome.OUTCOME_CREATED,
      ImportRowOutcome_Outcome.OUTCOME_INVALID,
      ImportRowOutcome_Outcome.OUTCOME_INVALID,
      ImportRowOutcome_Outcome.OUTCOME_UNCHANGED,
      ImportRowOutcome_Outcome.OUTCOME_UPDATED,
      ImportRowOutcome_Outcome.OUTCOME_INVALID,
    ],
  );
  t.is(job.errors!.find((e) => e.row === 2)?.field, 'languageCodes.0');
  const langs = async (externalId: string) =>
    (await rest().get(`/api/v2/providers?externalId=${externalId}`)).body.data[0].languageCodes;
  t.deepEqual(await langs('keep-langs'), ['en'], 'a row without languageCodes keeps them');
  t.deepEqual(await langs('clear-langs'), [], 'a row with languageCodes: [] clears them');
  // REST parity for a read: the REST answer, mapped onto the message, is the typed answer.
  const restJob = await rest().get(`/api/v2/provider-imports/${accepted.importId}`);
  t.is(restJob.status, 200);
  t.deepEqual(responseMessageOf(route('GetProviderImport'), restJob.body).providerImport, job);
  const listed = await unary<ListProviderImportsResponse>('listProviderImports', { importId: accepted.importId });
  t.deepEqual(listed.kind, { $case: 'providerImport', value: job });
});

test.serial('REST parity for a write: the same rows over REST answer the same 202 and the same job', async (t) => {
  const rows = [{ externalId: 'parity-1', displayName: 'Dr. Parity' }, 'not a row'];
  const viaRest = await rest().post('/api/v2/provider-imports', { dryRun: true, providers: rows });
  t.is(viaRest.status, 202);
  const viaGrpc = (
    await unary<CreateProviderImportResponse>('createProviderImport', { dryRun: true, providerRowValues: rows })
  ).providerImportAccepted!;
  const restMessage = responseMessageOf(route('CreateProviderImport'), viaRest.body).providerImportAccepted as object;
  t.deepEqual({ ...restMessage, importId: viaGrpc.importId }, viaGrpc);
  const a = await finished(viaRest.body.importId);
  const b = await finished(viaGrpc.importId!);
  // A dry run draws provider ids it then rolls back: only they, the job's id and its times differ.
  const strip = (j: ProviderImport) => ({
    ...j,
    importId: '',
    createdAt: undefined,
    completedAt: undefined,
    rows: j.rows!.map((r) => ({ ...r, providerId: r.providerId === undefined ? undefined : 'drawn' })),
  });
  t.deepEqual(strip(a), strip(b));
  t.like(a.summary, { received: 2, created: 1, invalid: 1 });
  // Over REST a missing `providers` is still told apart from an empty list: refused at the edge as REQUIRED.
  const missing = await rest().post('/api/v2/provider-imports', { dryRun: true });
  t.is(missing.status, 400);
  t.like(missing.body.error, { code: 'VALIDATION_ERROR', field: 'providers' });
  t.is(missing.body.error.details[0].code, 'REQUIRED');
  t.is((await rest().post('/api/v2/provider-imports', { dryRun: true, providers: [] })).status, 202);
});

const refusals: Refusal[] = [
  {
    name: 'an organization key cannot import',
    call: () => unary('createProviderImport', { providerRowValues: [] }, orgKey),
    code: status.PERMISSION_DENIED,
    reason: 'PLATFORM_KEY_REQUIRED',
  },
  {
    name: 'over 500 rows',
    call: () =>
      unary('createProviderImport', {
        providerRowValues: Array.from({ length: 501 }, (_, i) => ({ externalId: `x${i}`, displayName: 'X' })),
      }),
    code: status.INVALID_ARGUMENT,
    reason: 'TOO_MANY_PROVIDERS',
    field: 'providers',
  },
  {
    name: 'an unknown import',
    call: () => unary('getProviderImport', { importId: 'imp_nope' }),
    code: status.NOT_FOUND,
    reason: 'IMPORT_NOT_FOUND',
  },
  {
    name: 'an import id left out',
    call: () => unary('getProviderImport', {}),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'importId',
  },
  {
    name: 'a page size of 0',
    call: () => unary('listProviderImports', { pageSize: 0 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
];
assertRefusals(test, 'a typed ImportService request is refused with ErrorInfo', refusals);

test.serial(
  'CreateProviderImport and ListProviderImports are functions of their dependencies, the caller and the request',
  async (t) => {
    const { db } = svc.service.deps;
    const caller = {
      requestId: 'req_direct',
      keyId: 'key_direct',
      keyType: 'platform_test',
      mode: 'test',
      platformId: org.platformId,
      organizationId: org.id,
      isPlatformKey: true,
      viaOrganizationHeader: true,
    } as Caller;
    const clock = () => new Date('2026-03-02T12:00:00.000Z');
    const made = (
      await createProviderImport({ db, clock }, caller, {
        importMode: ImportMode.IMPORT_MODE_CREATE_ONLY,
        dryRun: true,
        providerRowValues: [{ externalId: 'direct', displayName: 'Dr. Direct' }],
      })
    ).providerImportAccepted!;
    t.like(made, { status: 'validating', dryRun: true, importMode: ImportMode.IMPORT_MODE_CREATE_ONLY });
    t.true(made.importId!.startsWith('imp_'));
    const direct = await listProviderImports({ db }, caller, { importId: made.importId });
    t.is(direct.kind?.$case, 'providerImport');
    const job = (direct.kind as { value: ProviderImport }).value;
    t.deepEqual(job.createdAt, clock());
    t.is(job.progress?.total, 1);
    const page = await listProviderImports({ db }, caller, { pageSize: 1 });
    t.is(page.kind?.$case, 'page');
  },
);
