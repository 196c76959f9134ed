import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CreateContinuityBody, CreateWaitlistEntryBody, ListContinuityQuery, ListManualReviewQuery, ListWaitlistQuery, ManualReviewPath, WaitlistEntryPath,
} from '../contract/schemas/care.js';
import { ServiceError } from '../errors/service-error.js';
import type { Queryable } from '../persistence/database.js';
import { findProviderRow } from '../persistence/provider-repository.js';
import { findServiceRow } from '../persistence/service-repository.js';
import { newId } from '../persistence/new-id.js';
import { bumpGraphVersion } from '../persistence/organization-repository.js';
import type { AppDeps } from './app-deps.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { providerOfCaller } from './provider-operations.js';
import { recordAudit } from './record-audit.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** A continuity record as answered. */
function toContinuityView(row: Record<string, any>) {
  return { id: row.id as string, providerId: row.provider_id as string, clientRef: row.client_ref as string, lastSeenAt: iso(row.last_seen_at), createdAt: (row.created_at as Date).toISOString() };
}

/** What a waitlist entry keeps in its `doc` column. */
interface WaitlistDoc {
  serviceId: string;
  customer: { name: string; email: string };
  constraints: Record<string, unknown> | null;
  preferences: Record<string, unknown> | null;
  resolutionId: string | null;
  cancelledAt: string | null;
}

/** A waitlist entry as answered. */
function toWaitlistView(row: Record<string, any>) {
  const d = row.doc as WaitlistDoc;
  return {
    id: row.id as string, status: row.status as 'waiting' | 'cancelled', serviceId: d.serviceId, customer: d.customer,
    constraints: d.constraints ?? null, preferences: d.preferences ?? null, resolutionId: d.resolutionId ?? null,
    createdAt: (row.created_at as Date).toISOString(), updatedAt: (row.updated_at as Date).toISOString(), cancelledAt: d.cancelledAt ?? null,
  };
}

/** A manual-review entry (joined with its provider's displayName) as answered. */
function toReviewView(row: Record<string, any>) {
  return {
    providerId: row.provider_id as string, displayName: (row.display_name as string | null) ?? '', reasons: row.reasons as { code: string; field: string; detail: string }[],
    firstSeenAt: (row.first_seen_at as Date).toISOString(), lastSeenAt: (row.last_seen_at as Date).toISOString(), status: row.status as 'open' | 'resolved', resolvedAt: iso(row.resolved_at),
  };
}

const REVIEW_SELECT = `SELECT m.*, p.doc->>'displayName' AS display_name FROM manual_review_entries m JOIN providers p ON p.id = m.provider_id`;

/** Reads a waitlist entry of the caller's organization: 404 when unknown, 403 when another organization's. */
async function waitlistEntryOfCaller(db: Queryable, caller: Caller, id: string, opts: { forUpdate?: boolean } = {}) {
  const r = await db.query(`SELECT * FROM waitlist_entries WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  const row = r.rows[0];
  if (!row) throw new ServiceError('WAITLIST_ENTRY_NOT_FOUND');
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return row as Record<string, any>;
}

/** Checks that an id in a body names a record of the caller's organization (404 when unknown, 403 when foreign). */
function ensureOwned(row: Record<string, any> | undefined, caller: Caller, notFound: 'SERVICE_NOT_FOUND' | 'RESOLUTION_NOT_FOUND' | 'PROVIDER_NOT_FOUND', field: string) {
  if (!row) throw new ServiceError(notFound, undefined, { field });
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN', undefined, { field });
}

/** The page size and keyset position of a list query. */
function pageOf(q: { limit?: number | undefined; cursor?: string | undefined }) {
  return { limit: q.limit ?? 50, after: decodeCursor(q.cursor) ?? '' };
}

/** CareService operations: continuity records, the waitlist and the manual-review queue (SPEC 4.7, CONTRACT part 7). */
export function createCareOperations(deps: AppDeps): OperationTable {
  return {
    CreateContinuity: {
      audit: { action: 'continuity.create', resourceType: 'continuity', kind: 'write-if-changed' },
      async handler(caller, input) {
        const body = parseInput(CreateContinuityBody, input.body);
        const now = deps.clock();
        const lastSeenAt = body.lastSeenAt === undefined ? null : new Date(body.lastSeenAt);
        return deps.db.transaction(async (tx) => {
          await providerOfCaller(tx, caller, body.providerId).catch((err: unknown) => {
            throw err instanceof ServiceError ? new ServiceError(err.code, err.message, { field: 'providerId' }) : err;
          });
          const before = await tx.query('SELECT * FROM continuity_records WHERE organization_id = $1 AND client_ref = $2 AND provider_id = $3 FOR UPDATE', [caller.organizationId, body.clientRef, body.providerId]);
          const prev = before.rows[0] ? toContinuityView(before.rows[0]) : undefined;
          const r = await tx.query(
            `INSERT INTO continuity_records (id, platform_id, organization_id, provider_id, client_ref, last_seen_at, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)
             ON CONFLICT (organization_id, client_ref, provider_id) DO UPDATE SET last_seen_at = coalesce(EXCLUDED.last_seen_at, continuity_records.last_seen_at)
             RETURNING *`,
            [newId('cty', now.getTime()), caller.platformId, caller.organizationId, body.providerId, body.clientRef, lastSeenAt, now]);
          const view = toContinuityView(r.rows[0]);
          if (prev && prev.lastSeenAt === view.lastSeenAt) return view;
          // Continuity changes the order a resolution gives; a new graph version keeps "same input, same graph version, same order" true.
          await bumpGraphVersion(tx, caller.organizationId);
          await recordAudit(tx, caller, now, { action: prev ? 'continuity.update' : 'continuity.create', resourceType: 'continuity', resourceId: view.id, before: prev ?? null, after: view });
          return view;
        });
      },
    },
    ListContinuity: {
      audit: { action: 'continuity.list', resourceType: 'continuity', kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListContinuityQuery, input.query);
        const { limit, after } = pageOf(q);
        const r = await deps.db.query('SELECT * FROM continuity_records WHERE organization_id = $1 AND client_ref = $2 AND id > $3 ORDER BY id LIMIT $4', [caller.organizationId, q.clientRef, after, limit + 1]);
        return page(r.rows.map(toContinuityView), limit, (c) => c.id);
      },
    },
    CreateWaitlistEntry: {
      audit: { action: 'waitlist_entry.create', resourceType: 'waitlist_entry', kind: 'write' },
      async handler(caller, input) {
        const body = parseInput(CreateWaitlistEntryBody, input.body);
        ensureOwned(await findServiceRow(deps.db, body.serviceId), caller, 'SERVICE_NOT_FOUND', 'serviceId');
        if (body.resolutionId !== undefined) {
          const res = await deps.db.query('SELECT organization_id FROM resolutions WHERE id = $1', [body.resolutionId]);
          ensureOwned(res.rows[0], caller, 'RESOLUTION_NOT_FOUND', 'resolutionId');
        }
        const now = deps.clock();
        const doc: WaitlistDoc = {
          serviceId: body.serviceId, customer: body.customer, constraints: body.constraints ?? null, preferences: body.preferences ?? null,
          resolutionId: body.resolutionId ?? null, cancelledAt: null,
        };
        return deps.db.transaction(async (tx) => {
          const r = await tx.query(
            `INSERT INTO waitlist_entries (id, platform_id, organization_id, status, doc, created_at, updated_at) VALUES ($1,$2,$3,'waiting',$4,$5,$5) RETURNING *`,
            [newId('wl', now.getTime()), caller.platformId, caller.organizationId, JSON.stringify(doc), now]);
          const view = toWaitlistView(r.rows[0]);
          await recordAudit(tx, caller, now, { action: 'waitlist_entry.create', resourceType: 'waitlist_entry', resourceId: view.id, after: view });
          return view;
        });
      },
    },
    ListWaitlistEntries: {
      audit: { action: 'waitlist_entry.list', resourceType: 'waitlist_entry', kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListWaitlistQuery, input.query);
        const { limit, after } = pageOf(q);
        const args: unknown[] = [caller.organizationId, after, limit + 1];
        let where = 'organization_id = $1 AND id > $2';
        if (q.status) { args.push(q.status); where += ` AND status = $${args.length}`; }
        const r = await deps.db.query(`SELECT * FROM waitlist_entries WHERE ${where} ORDER BY id LIMIT $3`, args);
        return page(r.rows.map(toWaitlistView), limit, (w) => w.id);
      },
    },
    CancelWaitlistEntry: {
      audit: { action: 'waitlist_entry.cancel', resourceType: 'waitlist_entry', kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id } = parseInput(WaitlistEntryPath, input.params);
        await waitlistEntryOfCaller(deps.db, caller, id);
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const row = await waitlistEntryOfCaller(tx, caller, id, { forUpdate: true });
          const cur = toWaitlistView(row);
          if (cur.status === 'cancelled') return cur;
          const doc: WaitlistDoc = { ...(row.doc as WaitlistDoc), cancelledAt: now.toISOString() };
          const r = await tx.query(`UPDATE waitlist_entries SET status = 'cancelled', doc = $2, updated_at = $3 WHERE id = $1 RETURNING *`, [id, JSON.stringify(doc), now]);
          const view = toWaitlistView(r.rows[0]);
          await recordAudit(tx, caller, now, { action: 'waitlist_entry.cancel', resourceType: 'waitlist_entry', resourceId: id, before: cur, after: view });
          return view;
        });
      },
    },
    ListManualReview: {
      audit: { action: 'manual_review.list', resourceType: 'manual_review', kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListManualReviewQuery, input.query);
        const { limit, after } = pageOf(q);
        const r = await deps.db.query(`${REVIEW_SELECT} WHERE m.organization_id = $1 AND m.status = $2 AND m.provider_id > $3 ORDER BY m.provider_id LIMIT $4`,
          [caller.organizationId, q.status ?? 'open', after, limit + 1]);
        return page(r.rows.map(toReviewView), limit, (e) => e.providerId);
      },
    },
    ResolveManualReview: {
      audit: { action: 'manual_review.resolve', resourceType: 'manual_review', kind: 'write-if-changed' },
      async handler(caller, input) {
        const { providerId } = parseInput(ManualReviewPath, input.params);
        ensureOwned(await findProviderRow(deps.db, providerId), caller, 'PROVIDER_NOT_FOUND', 'providerId');
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const r = await tx.query(`${REVIEW_SELECT} WHERE m.organization_id = $1 AND m.provider_id = $2 FOR UPDATE OF m`, [caller.organizationId, providerId]);
          if (!r.rows[0]) throw new ServiceError('PROVIDER_NOT_FOUND', 'This provider has no manual-review entry.');
          const cur = toReviewView(r.rows[0]);
          if (cur.status === 'resolved') return cur;
          await tx.query(`UPDATE manual_review_entries SET status = 'resolved', resolved_at = $3 WHERE organization_id = $1 AND provider_id = $2`, [caller.organizationId, providerId, now]);
          const view = { ...cur, status: 'resolved' as const, resolvedAt: now.toISOString() };
          await recordAudit(tx, caller, now, { action: 'manual_review.resolve', resourceType: 'manual_review', resourceId: providerId, before: cur, after: view });
          return view;
        });
      },
    },
  };
}
