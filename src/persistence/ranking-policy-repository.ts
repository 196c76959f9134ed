import type { RankingPolicy, RankingWeights, TieBreaker } from '../domain/ranking/ranking-policy.js';
import type { RankingPolicyStatus } from '../../machines/ranking-policy-machine.js';
import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** A ranking policy (its working copy) as the API answers it. */
export interface RankingPolicyRecord {
  id: string;
  name: string;
  status: RankingPolicyStatus;
  weights: RankingWeights;
  tieBreakers: TieBreaker[];
  activeVersion: number | null;
  createdAt: string;
  updatedAt: string;
}

/** An activated version of a policy: the snapshot taken when it was activated. */
export interface RankingPolicyVersionRecord {
  version: number;
  name: string;
  weights: RankingWeights;
  tieBreakers: TieBreaker[];
  activatedAt: string;
}

/** Maps a ranking_policies row to a RankingPolicyRecord. */
function toRankingPolicy(row: Record<string, any>): RankingPolicyRecord {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    weights: row.weights,
    tieBreakers: row.tie_breakers,
    activeVersion: row.active_version ?? null,
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}

/** Maps a ranking_policy_versions row to a RankingPolicyVersionRecord. */
function toRankingPolicyVersion(row: Record<string, any>): RankingPolicyVersionRecord {
  return {
    version: row.version as number,
    name: row.name as string,
    weights: row.weights as RankingWeights,
    tieBreakers: row.tie_breakers as TieBreaker[],
    activatedAt: (row.activated_at as Date).toISOString(),
  };
}

/** Reads one policy by id (any organization; callers check tenancy) with its organization, or undefined. */
export async function findRankingPolicy(
  db: Queryable,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<{ organizationId: string; policy: RankingPolicyRecord } | undefined> {
  const r = await db.query(`SELECT * FROM ranking_policies WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  const row = r.rows[0];
  return row ? { organizationId: row.organization_id as string, policy: toRankingPolicy(row) } : undefined;
}

/** Inserts a policy with no active version, in the status given; returns it. */
export async function insertRankingPolicy(
  tx: Queryable,
  p: {
    id: string;
    platformId: string;
    organizationId: string;
    name: string;
    status: RankingPolicyStatus;
    weights: RankingWeights;
    tieBreakers: readonly TieBreaker[];
    now: Date;
  },
): Promise<RankingPolicyRecord> {
  const r = await tx.query(
    `INSERT INTO ranking_policies (id, platform_id, organization_id, name, status, weights, tie_breakers, active_version, created_at, updated_at)
     VALUES ($1,$2,$3,$4,$8,$5,$6,NULL,$7,$7) RETURNING *`,
    [
      p.id,
      p.platformId,
      p.organizationId,
      p.name,
      JSON.stringify(p.weights),
      JSON.stringify(p.tieBreakers),
      p.now,
      p.status,
    ],
  );
  return toRankingPolicy(r.rows[0]);
}

/** Lists an organization's policies (of one status, when given) in id order after `after`, at most `limit` rows. */
export async function listRankingPolicies(
  db: Queryable,
  f: { organizationId: string; status?: RankingPolicyStatus | undefined },
  page: { after: string; limit: number },
): Promise<RankingPolicyRecord[]> {
  const query = { where: ['organization_id = $1'], args: [f.organizationId] as unknown[] };
  if (f.status) {
    query.args.push(f.status);
    query.where.push(`status = $${query.args.length}`);
  }
  const orderLimit = keysetPage(query, { columns: ['id'], order: 'asc', after: [page.after], limit: page.limit });
  const r = await db.query(
    `SELECT * FROM ranking_policies WHERE ${query.where.join(' AND ')} ${orderLimit}`,
    query.args,
  );
  return r.rows.map(toRankingPolicy);
}

/** Writes a policy's working copy; returns it. */
export async function updateRankingPolicy(
  tx: Queryable,
  id: string,
  v: { name: string; weights: RankingWeights; tieBreakers: readonly TieBreaker[]; now: Date },
): Promise<RankingPolicyRecord> {
  const r = await tx.query(
    'UPDATE ranking_policies SET name = $2, weights = $3, tie_breakers = $4, updated_at = $5 WHERE id = $1 RETURNING *',
    [id, v.name, JSON.stringify(v.weights), JSON.stringify(v.tieBreakers), v.now],
  );
  return toRankingPolicy(r.rows[0]);
}

/** Prefix of the advisory-lock key of an organization's activations (hashed with its id). */
const ACTIVATION_LOCK = 'ranking_policy.activate:';

/** Takes the transaction-scoped advisory lock that serializes policy activations within one organization. */
export async function lockRankingPolicyActivations(tx: Queryable, organizationId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [ACTIVATION_LOCK + organizationId]);
}

/** Reads the number the next activated version of a policy takes (1 for the first). */
export async function nextRankingPolicyVersion(tx: Queryable, policyId: string): Promise<number> {
  const v = await tx.query<{ next: number }>(
    'SELECT coalesce(max(version), 0) + 1 AS next FROM ranking_policy_versions WHERE policy_id = $1',
    [policyId],
  );
  return Number(v.rows[0]?.next ?? 1);
}

/** Stores the snapshot of a policy taken as one of its versions. */
export async function insertRankingPolicyVersion(
  tx: Queryable,
  v: {
    policyId: string;
    version: number;
    organizationId: string;
    name: string;
    weights: RankingWeights;
    tieBreakers: readonly TieBreaker[];
    activatedAt: Date;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO ranking_policy_versions (policy_id, version, organization_id, name, weights, tie_breakers, activated_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
    [
      v.policyId,
      v.version,
      v.organizationId,
      v.name,
      JSON.stringify(v.weights),
      JSON.stringify(v.tieBreakers),
      v.activatedAt,
    ],
  );
}

/**
 * Moves the organization's active policy other than `exceptId` (the row the partial unique index admits) to
 * `status`; returns the ids it moved.
 */
export async function setStatusOfOtherActivePolicies(
  tx: Queryable,
  p: { organizationId: string; exceptId: string; status: RankingPolicyStatus; now: Date },
): Promise<string[]> {
  const off = await tx.query<{ id: string }>(
    `UPDATE ranking_policies SET status = $4, updated_at = $3 WHERE organization_id = $1 AND status = 'active' AND id <> $2 RETURNING id`,
    [p.organizationId, p.exceptId, p.now, p.status],
  );
  return off.rows.map((x) => x.id);
}

/** Records that `version` of a policy was activated at `activatedAt`, in the status given. */
export async function writeRankingPolicyActivation(
  tx: Queryable,
  p: { id: string; version: number; status: RankingPolicyStatus; activatedAt: Date },
): Promise<void> {
  await tx.query(
    `UPDATE ranking_policies SET status = $4, active_version = $2, activated_at = $3, updated_at = $3 WHERE id = $1`,
    [p.id, p.version, p.activatedAt, p.status],
  );
}

/** Lists a policy's versions in version order after `afterVersion`, at most `limit` rows. */
export async function listRankingPolicyVersions(
  db: Queryable,
  policyId: string,
  page: { afterVersion: number; limit: number },
): Promise<RankingPolicyVersionRecord[]> {
  const query = { where: ['policy_id = $1'], args: [policyId] as unknown[] };
  const orderLimit = keysetPage(query, {
    columns: ['version'],
    order: 'asc',
    after: [page.afterVersion],
    limit: page.limit,
  });
  const r = await db.query(
    `SELECT * FROM ranking_policy_versions WHERE ${query.where.join(' AND ')} ${orderLimit}`,
    query.args,
  );
  return r.rows.map(toRankingPolicyVersion);
}

/** A policy named by id with its active version (all null when it has never been activated), or undefined. */
export async function findPolicyWithActiveVersion(
  db: Queryable,
  policyId: string,
): Promise<
  | {
      id: string;
      organizationId: string;
      version: number | null;
      weights: RankingWeights | null;
      tieBreakers: TieBreaker[] | null;
    }
  | undefined
> {
  const r = await db.query(
    `SELECT p.id, p.organization_id, v.version, v.weights, v.tie_breakers FROM ranking_policies p
     LEFT JOIN ranking_policy_versions v ON v.policy_id = p.id AND v.version = p.active_version WHERE p.id = $1`,
    [policyId],
  );
  const row = r.rows[0];
  return row
    ? {
        id: row.id,
        organizationId: row.organization_id,
        version: row.version,
        weights: row.weights,
        tieBreakers: row.tie_breakers,
      }
    : undefined;
}

/** The active version of an organization's active policy, or undefined when it has none. */
export async function findActivePolicyOfOrganization(
  db: Queryable,
  organizationId: string,
): Promise<RankingPolicy | undefined> {
  const r = await db.query(
    `SELECT p.id, v.version, v.weights, v.tie_breakers FROM ranking_policies p
     JOIN ranking_policy_versions v ON v.policy_id = p.id AND v.version = p.active_version
     WHERE p.organization_id = $1 AND p.status = 'active'`,
    [organizationId],
  );
  const row = r.rows[0];
  return row ? { id: row.id, version: row.version, weights: row.weights, tieBreakers: row.tie_breakers } : undefined;
}
