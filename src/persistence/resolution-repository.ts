import type { Interval } from '../domain/availability/busy-intervals.js';
import type { RankingPolicy } from '../domain/ranking/ranking-policy.js';
import { AUDIT_INSERT_COLUMNS, auditInsertParams, type AuditEntry } from './audit-log.js';
import type { Queryable } from './database.js';
import { EVENT_API_VERSION } from './event-outbox.js';
import { newId } from './new-id.js';
import { keysetPage } from './keyset-page.js';
import { claimLiveSql } from './slot-claims.js';
import type { ResolutionDemand } from './resolution-demand.js';

/** What a resolution needs to know about its organization, read in one query. */
export interface ResolutionContext {
  graphVersion: number;
  allowUnverifiable: boolean;
  /** The organization's active policy (its active version), when it has one. */
  activePolicy: RankingPolicy | undefined;
}

/** Reads the organization's provider graph version, settings and active ranking policy in one round trip. */
export async function readResolutionContext(db: Queryable, organizationId: string): Promise<ResolutionContext> {
  const r = await db.query({
    name: 'resolution-context',
    text: `SELECT o.graph_version, o.settings, p.id AS policy_id, v.version, v.weights, v.tie_breakers
     FROM organizations o
     LEFT JOIN ranking_policies p ON p.organization_id = o.id AND p.status = 'active'
     LEFT JOIN ranking_policy_versions v ON v.policy_id = p.id AND v.version = p.active_version
     WHERE o.id = $1`,
    values: [organizationId],
  });
  const row = r.rows[0];
  return {
    graphVersion: Number(row?.graph_version ?? 0),
    allowUnverifiable: Boolean(row?.settings?.allowUnverifiable),
    activePolicy:
      row?.policy_id && row.version !== null
        ? { id: row.policy_id, version: row.version, weights: row.weights, tieBreakers: row.tie_breakers }
        : undefined,
  };
}

/** Busy time (active claims: pending/confirmed bookings and live holds) and open-booking workload per provider. */
export interface BusyTime {
  busy: Map<string, Interval[]>;
  workload: Map<string, number>;
}

/**
 * Reads busy time over [from, to) and the current workload of the given providers only, in one round trip
 * (instants come back as epoch milliseconds: no Date parsing per row).
 */
export async function readBusyTime(
  db: Queryable,
  organizationId: string,
  providerIds: readonly string[],
  from: number,
  to: number,
  now: Date,
): Promise<BusyTime> {
  const busy = new Map<string, Interval[]>();
  const workload = new Map<string, number>();
  if (providerIds.length === 0) return { busy, workload };
  // Both halves are index scans on (organization_id, provider_id, ...) with the id array as an index condition
  // (migration 0005). The overlap is written with lower()/upper(), not `&&`, so that only the btree index fits:
  // per-id probes of the exclusion constraint's GiST index, or a scan of the organization's whole claim set
  // (which the generic plan of a prepared statement once chose), cost 5-160 ms where this costs ~1 ms for 300 ids.
  // The statement is deliberately unnamed, so it is planned with the id array as a constant every time: a generic
  // plan tests `provider_id = ANY($2)` row by row with a linear search of the array (1,000 ids against 200 open
  // bookings: 4.6 ms of PostgreSQL CPU), where a custom plan hashes the array (0.6 ms) for ~0.5 ms of planning.
  const r = await db.query({
    text: `SELECT c.provider_id, 0 AS kind, (extract(epoch FROM lower(c.during)) * 1000)::float8 AS a, (extract(epoch FROM upper(c.during)) * 1000)::float8 AS b
       FROM slot_claims c
      WHERE c.organization_id = $1 AND c.provider_id = ANY($2) AND c.active AND lower(c.during) < $4 AND upper(c.during) > $3
        AND ${claimLiveSql('$5', 'c.')}
     UNION ALL
     SELECT b.provider_id, 1, count(*)::float8, 0 FROM bookings b
      WHERE b.organization_id = $1 AND b.provider_id = ANY($2) AND b.status IN ('pending', 'confirmed') AND b.end_at > $5
      GROUP BY b.provider_id`,
    values: [organizationId, providerIds, new Date(from), new Date(to), now],
  });
  for (const row of r.rows) {
    if (row.kind === 1) {
      workload.set(row.provider_id, row.a);
      continue;
    }
    const list = busy.get(row.provider_id);
    const interval = { start: row.a as number, end: row.b as number };
    if (list) list.push(interval);
    else busy.set(row.provider_id, [interval]);
  }
  return { busy, workload };
}

/** The resolutions ledger row. */
export interface ResolutionRow {
  id: string;
  platformId: string;
  organizationId: string;
  /** The resolution actor's state (resolved, zero_results, expired), written by each step that changes it. */
  status: string;
  requestId: string;
  serviceSlug: string;
  policyId: string;
  policyVersion: number;
  graphVersion: number;
  optionsReturned: number;
  evaluatedSlots: number;
  providersScanned: number;
  createdAt: Date;
  expiresAt: Date;
}

/** An event for the outbox (ids are assigned here). */
export interface ResolutionEvent {
  type: string;
  data: object;
}

/**
 * Stores a resolution's ledger row, its demand rows (network adequacy), its outbox events and its audit event in one
 * statement (one round trip, one implicit transaction). Manual review is recorded by a worker (review-queue.ts).
 */
export async function insertResolution(
  db: Queryable,
  p: {
    row: ResolutionRow;
    mode: 'live' | 'test';
    events: readonly ResolutionEvent[];
    audit: AuditEntry;
    demand: ResolutionDemand;
  },
): Promise<void> {
  const { row, demand } = p;
  const codes = Object.keys(demand.exclusions);
  const events = p.events.map((e) => ({ id: newId('evt', row.createdAt.getTime()), type: e.type, data: e.data }));
  const audit = auditInsertParams(p.audit);
  const auditPlaceholders = audit.params.map((_, i) => `$${i + 22}`).join(',');
  await db.query({
    name: 'insert-resolution',
    text: `WITH res AS (
       INSERT INTO resolutions (id, platform_id, organization_id, status, request_id, service_slug, policy_id, policy_version, graph_version, options_returned, evaluated_slots, providers_scanned, created_at, expires_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)),
     ev AS (
       INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
       SELECT x.id, $2, $3, x.type, $15, $16, x.data, $13 FROM jsonb_to_recordset($17::jsonb) AS x(id text, type text, data jsonb)),
     dm AS (
       INSERT INTO resolution_demands (resolution_id, platform_id, organization_id, dimension, value, created_at, zero_results, days_to_first_option, exclusion_codes, exclusion_counts)
       SELECT $1, $2, $3, x.dimension, x.value, $13, $10 = 0, $19::float8, $20::text[], $21::int[] FROM jsonb_to_recordset($18::jsonb) AS x(dimension text, value text)),
     au AS (INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) VALUES (${auditPlaceholders}))
     SELECT 1`,
    values: [
      row.id,
      row.platformId,
      row.organizationId,
      row.status,
      row.requestId,
      row.serviceSlug,
      row.policyId,
      row.policyVersion,
      row.graphVersion,
      row.optionsReturned,
      row.evaluatedSlots,
      row.providersScanned,
      row.createdAt,
      row.expiresAt,
      EVENT_API_VERSION,
      p.mode,
      JSON.stringify(events),
      JSON.stringify(demand.values),
      demand.daysToFirstOption,
      codes,
      codes.map((c) => demand.exclusions[c]),
      ...audit.params,
    ],
  });
}

/** A resolutions ledger row as listed: the row written at creation, plus the booking that confirmed it. */
export interface ListedResolution extends Omit<ResolutionRow, 'platformId' | 'organizationId' | 'status'> {
  /** The outcome when the resolution was made (the list's `status`), whatever state the resolution is in now. */
  outcome: ResolutionOutcomeStatus;
  bookingId: string | null;
}

/** The outcome a resolution was made with: `resolved` when it returned options. */
export type ResolutionOutcomeStatus = 'resolved' | 'zero_results';

/** The outcome of a resolution that returned `optionsReturned` options (its first state, before any expiry). */
export const outcomeOf = (optionsReturned: number): ResolutionOutcomeStatus =>
  optionsReturned > 0 ? 'resolved' : 'zero_results';

/** SQL: whether the resolution row `r` was made with options (its outcome `resolved`; see outcomeOf). */
export const resolvedOutcomeSql = (r: string) => `${r}.options_returned > 0`;

/**
 * Records a resolution's state as its actor's step decided it (`resolved`/`zero_results` -> `expired`). Idempotent:
 * a step repeated after a crash writes the same value.
 */
export async function recordResolutionStatus(db: Queryable, id: string, status: string): Promise<void> {
  await db.query({
    name: 'record-resolution-status',
    text: 'UPDATE resolutions SET status = $2 WHERE id = $1',
    values: [id, status],
  });
}

/**
 * Reads an organization's resolutions newest first, `limit` of them after the keyset position `before` (the
 * created_at and id of the last row of the previous page), on the (organization_id, created_at) index.
 */
export async function listResolutions(
  db: Queryable,
  organizationId: string,
  opts: { limit: number; before?: { createdAt: Date; id: string } },
): Promise<ListedResolution[]> {
  const query = { where: ['organization_id = $1'], args: [organizationId] as unknown[] };
  const orderLimit = keysetPage(query, {
    columns: ['created_at', 'id'],
    order: 'desc',
    after: opts.before && [opts.before.createdAt, opts.before.id],
    limit: opts.limit,
  });
  const r = await db.query({
    name: opts.before ? 'list-resolutions-after' : 'list-resolutions',
    text: `SELECT id, request_id, service_slug, policy_id, policy_version, graph_version, options_returned, evaluated_slots, providers_scanned, booking_id, created_at, expires_at
      FROM resolutions WHERE ${query.where.join(' AND ')} ${orderLimit}`,
    values: query.args,
  });
  return r.rows.map((row) => ({
    id: row.id,
    outcome: outcomeOf(row.options_returned),
    requestId: row.request_id,
    serviceSlug: row.service_slug,
    policyId: row.policy_id,
    policyVersion: row.policy_version,
    graphVersion: Number(row.graph_version),
    optionsReturned: row.options_returned,
    evaluatedSlots: row.evaluated_slots,
    providersScanned: row.providers_scanned,
    bookingId: row.booking_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  }));
}

/** Reads the organization a resolution belongs to (any organization; callers check tenancy), or undefined. */
export async function findResolutionOrganizationId(db: Queryable, id: string): Promise<string | undefined> {
  const r = await db.query<{ organization_id: string }>('SELECT organization_id FROM resolutions WHERE id = $1', [id]);
  return r.rows[0]?.organization_id;
}

/** A resolution's ledger as its actor was made from it: the row, its holds in order, and the booking that confirmed it. */
export interface ResolutionLedger {
  id: string;
  organizationId: string;
  status: string;
  optionsReturned: number;
  expiresAt: Date;
  holds: { holdId: string; startedAt: Date; endedAt: Date | null; bookingId: string | null }[];
  booking: { id: string; createdAt: Date } | null;
}

/** Reads a resolution's ledger (row, holds, booking) of one organization in one statement, or undefined. */
export async function readResolutionLedger(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<ResolutionLedger | undefined> {
  const r = await db.query({
    name: 'read-resolution-ledger',
    text: `SELECT r.id, r.organization_id, r.status, r.options_returned, r.expires_at,
       (SELECT jsonb_build_object('id', b.id, 'createdAt', b.created_at) FROM bookings b
         WHERE b.organization_id = r.organization_id AND b.resolution_id = r.id ORDER BY b.created_at LIMIT 1) AS booking,
       COALESCE((SELECT jsonb_agg(jsonb_build_object('holdId', c.ref_id, 'startedAt', c.created_at, 'endedAt', c.ended_at,
           'bookingId', c.booking_id) ORDER BY c.created_at, c.ref_id)
         FROM slot_claims c WHERE c.organization_id = r.organization_id AND c.kind = 'hold' AND c.resolution_id = r.id),
         '[]'::jsonb) AS holds
     FROM resolutions r WHERE r.organization_id = $1 AND r.id = $2`,
    values: [organizationId, id],
  });
  const row = r.rows[0];
  if (!row) return undefined;
  const date = (s: string | null) => (s ? new Date(s) : null);
  return {
    id: row.id,
    organizationId: row.organization_id,
    status: row.status,
    optionsReturned: row.options_returned,
    expiresAt: row.expires_at,
    holds: (row.holds as { holdId: string; startedAt: string; endedAt: string | null; bookingId: string | null }[]).map(
      (h) => ({ holdId: h.holdId, startedAt: new Date(h.startedAt), endedAt: date(h.endedAt), bookingId: h.bookingId }),
    ),
    booking: row.booking ? { id: row.booking.id, createdAt: new Date(row.booking.createdAt) } : null,
  };
}
