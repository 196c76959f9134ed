import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import { ListAuditEventsQuery, VerifyAuditChainQuery } from '../contract/schemas/audit-event.js';
import { listAuditEventRows, type AuditListPosition } from '../persistence/audit-log.js';
import { verifyOrganizationAuditChain } from '../persistence/verify-audit-chain.js';
import { ServiceError } from '../errors/service-error.js';
import type { AppDeps } from './app-deps.js';
import type { OperationTable } from './operation.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** An audit event as the API answers it (snake_case fields, CONTRACT part 7). */
export interface AuditEventView {
  id: string;
  actor: unknown;
  action: string;
  resource_type: string;
  resource_id: string | null;
  request_id: string | null;
  organization_id: string;
  before: unknown;
  after: unknown;
  timestamp: string;
}

/** Maps an audit_events row to its API shape. */
export function toAuditEventView(row: Record<string, any>): AuditEventView {
  return {
    id: row.id,
    actor: row.actor,
    action: row.action,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    request_id: row.request_id,
    organization_id: row.organization_id,
    before: row.before ?? null,
    after: row.after ?? null,
    timestamp: (row.timestamp as Date).toISOString(),
  };
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})\|([\w.:-]{1,200})$/;

/**
 * The list position a cursor names: `<timestamp>|<id>` of the last event of a page; a cursor of digits alone is the
 * seq of that event, as cursors were before the list was ordered by time (a client paging across the upgrade goes on).
 */
function auditListPosition(position: string | undefined): AuditListPosition | undefined {
  if (position === undefined) return undefined;
  const m = CURSOR.exec(position);
  if (m) return { timestamp: m[1]!, id: m[2]! };
  if (/^\d{1,15}$/.test(position)) return { seq: Number(position) };
  throw new ServiceError('VALIDATION_ERROR', 'cursor is not one this service issued.', {
    field: 'cursor',
    details: [{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }],
  });
}

/**
 * AuditService operations: the caller's organization's audit log, newest first by request time (keyset on
 * ("timestamp", id), CONTRACT part 7), and its chain's verification.
 */
export function createAuditOperations(deps: AppDeps): OperationTable {
  return {
    ListAuditEvents: {
      audit: { ...AUDIT_ACTIONS.auditEventList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListAuditEventsQuery, input.query);
        const limit = q.limit ?? 50;
        const rows = await listAuditEventRows(
          deps.db,
          {
            organizationId: caller.organizationId,
            action: q.action,
            resourceType: q.resource_type,
            resourceId: q.resource_id,
          },
          { after: auditListPosition(decodeCursor(q.cursor)), limit: limit + 1 },
        );
        const paged = page(rows, limit, (row) => `${row.position.timestamp}|${row.position.id}`);
        return { data: paged.data.map(toAuditEventView), hasMore: paged.hasMore, nextCursor: paged.nextCursor };
      },
    },
    VerifyAuditChain: {
      audit: { ...AUDIT_ACTIONS.auditChainVerify, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(VerifyAuditChainQuery, input.query);
        const report = await verifyOrganizationAuditChain(deps.db, caller.organizationId, {
          latest: q.limit ?? 10_000,
        });
        return {
          status: report.breaks.length === 0 ? 'intact' : 'broken',
          checked: report.checked,
          linked: report.linked,
          pending: report.pending,
          breaks: report.breaks.map((b) => ({ eventId: b.id, reason: b.reason })),
          fromPosition: report.fromPosition,
          toPosition: report.toPosition,
          complete: report.complete,
          verifiedAt: deps.clock().toISOString(),
        };
      },
    },
  };
}
