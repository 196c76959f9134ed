import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, status } from '@grpc/grpc-js';
import {
  AuditServiceClient,
  type ListAuditEventsResponse,
  type VerifyAuditChainResponse,
} from '../../src/gen/scheduling/v1/audit_service.js';
import { AuditChainVerification_Status } from '../../src/gen/scheduling/v1/resources.js';
import { auditRoutes } from '../../src/contract/routes/audit-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { auditEventMessage } from '../../src/api/messages/audit-event-message.js';
import { listAuditEvents } from '../../src/api/audit-service/list-audit-events.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * AuditService on its typed messages (src/api/audit-service/): typed answers (the actor as the AuditActor case,
 * `before`/`after` free-form), refusals with the contract's code as ErrorInfo reason and the field, and the explicit
 * mapping of a row (src/api/messages/audit-event-message.ts) equal to the message its REST answer was carried in
 * before the move.
 */

let svc: TestService;
let audit: AuditServiceClient;
let orgId: string;
test.before(async () => {
  svc = await startTestService();
  audit = new AuditServiceClient(svc.grpcTarget, credentials.createInsecure());
  const org = await client(svc.url, svc.platformKey).post('/api/v2/organizations', {
    externalId: `tau-${randomUUID().slice(0, 8)}`,
    name: 'Typed Audit',
  });
  orgId = org.body.id;
  const c = client(svc.url, svc.platformKey, { 'service-organization-id': orgId });
  for (const externalId of ['a', 'b']) {
    const p = await c.post('/api/v2/providers', { externalId, displayName: `Dr. ${externalId}` });
    if (p.status !== 200) throw new Error(`provider create failed: ${JSON.stringify(p.body)}`);
  }
});
test.after.always(async () => {
  audit?.close();
  await svc?.stop();
});

const metadata = () => bearer(svc.platformKey, { 'service-organization-id': orgId });

function unary<Res>(method: 'listAuditEvents' | 'verifyAuditChain', req: object): Promise<Res> {
  return unaryCall(audit, method, req, metadata());
}

test('ListAuditEvents answers typed audit events page by page, filtered; VerifyAuditChain a typed report', async (t) => {
  const creates = await unary<ListAuditEventsResponse>('listAuditEvents', { action: 'provider.create', pageSize: 1 });
  t.is(creates.data?.length, 1);
  t.true(creates.hasMore);
  const rest = await unary<ListAuditEventsResponse>('listAuditEvents', {
    action: 'provider.create',
    pageSize: 500,
    pageToken: creates.nextPageToken,
  });
  t.false(rest.hasMore);
  t.is(rest.nextPageToken, undefined);
  const all = [...creates.data!, ...rest.data!];
  t.is(all.length, 2);
  for (const e of all) {
    t.is(e.action, 'provider.create');
    t.is(e.organizationId, orgId);
    t.true(e.timestamp instanceof Date);
    t.is(e.changedBy?.kind?.$case, 'apiKey');
    t.is(e.before, null, 'a create has no before');
    t.is(typeof e.after, 'object');
    t.regex(e.resourceId!, /^prv_/);
  }
  const byId = await unary<ListAuditEventsResponse>('listAuditEvents', { resourceId: all[0]!.resourceId });
  t.deepEqual(
    byId.data!.map((e) => e.id),
    [all[0]!.id],
  );

  const report = (await unary<VerifyAuditChainResponse>('verifyAuditChain', { limit: 100 })).auditChainVerification!;
  t.is(report.status, AuditChainVerification_Status.STATUS_INTACT);
  t.deepEqual(report.breaks, []);
  t.true(report.verifiedAt instanceof Date);
  t.true(report.checked! >= 2);
});

const refusals: Refusal[] = [
  {
    name: 'an empty action filter',
    call: () => unary('listAuditEvents', { action: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'action',
  },
  {
    name: 'a resource type too long, named as REST names it',
    call: () => unary('listAuditEvents', { resourceType: 'x'.repeat(201) }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'resource_type',
  },
  {
    name: 'a page size out of range',
    call: () => unary('listAuditEvents', { pageSize: 501 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
  {
    name: 'a page token naming no list position',
    call: () => unary('listAuditEvents', { pageToken: Buffer.from('not-a-position').toString('base64url') }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'cursor',
  },
  {
    name: 'a verification limit out of range',
    call: () => unary('verifyAuditChain', { limit: 50_001 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
];
assertRefusals(test, 'a typed AuditService request is refused with ErrorInfo', refusals);

test('ListAuditEvents is a function of its dependencies, the caller and the typed request', async (t) => {
  const { db } = svc.service.deps;
  const caller = { requestId: 'req_direct', organizationId: orgId } as Caller;
  const direct = await listAuditEvents({ db }, caller, { action: 'provider.create' });
  const viaGrpc = await unary<ListAuditEventsResponse>('listAuditEvents', { action: 'provider.create' });
  t.deepEqual(direct.data, viaGrpc.data);
  const err = await t.throwsAsync(() => listAuditEvents({ db }, caller, { pageSize: 0 }));
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'limit' });
});

test('an audit row maps to the message its REST answer was carried in before the move', (t) => {
  const route = auditRoutes.find((r) => r.rpc === 'ListAuditEvents')!;
  const rows = [
    {
      id: 'aud_1',
      actor: { keyId: 'key_1', keyType: 'platform_test' },
      action: 'provider.update',
      resource_type: 'provider',
      resource_id: 'prv_1',
      request_id: 'req_1',
      organization_id: 'org_1',
      before: { displayName: 'A', tags: [1, null] },
      after: { displayName: 'B' },
      timestamp: new Date('2026-03-02T12:00:00.123Z'),
    },
    {
      id: 'aud_2',
      actor: { type: 'system' },
      action: 'hold.expire',
      resource_type: 'hold',
      resource_id: null,
      request_id: null,
      organization_id: 'org_1',
      before: null,
      after: null,
      timestamp: new Date('2026-03-02T12:00:01.000Z'),
    },
  ];
  // What the removed operation answered for a row (toAuditEventView), carried as the response message was.
  const restOf = (row: (typeof rows)[number]) => ({ ...row, timestamp: row.timestamp.toISOString() });
  const before = responseMessageOf(route, { data: rows.map(restOf), hasMore: false, nextCursor: null });
  t.deepEqual(rows.map(auditEventMessage), before.data);
});
