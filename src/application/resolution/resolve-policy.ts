import { ServiceError } from '../../errors/service-error.js';
import { DEFAULT_POLICY, type RankingPolicy, type TieBreaker, type RankingWeights } from '../../domain/ranking/ranking-policy.js';
import type { Queryable } from '../../persistence/database.js';

/**
 * Picks the policy a resolution ranks with (CONTRACT part 7): the requested `policyId` (its active version),
 * else the organization's active policy, else the built-in default `{id: "default", version: 1}`.
 */
export async function resolvePolicy(db: Queryable, organizationId: string, policyId: string | undefined): Promise<RankingPolicy> {
  if (policyId === 'default') return DEFAULT_POLICY;
  if (policyId !== undefined) {
    const r = await db.query(
      `SELECT p.id, p.organization_id, v.version, v.weights, v.tie_breakers FROM ranking_policies p
       LEFT JOIN ranking_policy_versions v ON v.policy_id = p.id AND v.version = p.active_version WHERE p.id = $1`, [policyId]);
    const row = r.rows[0];
    if (!row) throw new ServiceError('POLICY_NOT_FOUND', undefined, { field: 'policyId' });
    if (row.organization_id !== organizationId) throw new ServiceError('FORBIDDEN', undefined, { field: 'policyId' });
    if (row.version === null) throw new ServiceError('VALIDATION_ERROR', 'The policy has never been activated; activate it first.', { field: 'policyId', details: [{ field: 'policyId', code: 'INVALID', message: 'has no activated version' }] });
    return { id: row.id, version: row.version, weights: row.weights as RankingWeights, tieBreakers: row.tie_breakers as TieBreaker[] };
  }
  const r = await db.query(
    `SELECT p.id, v.version, v.weights, v.tie_breakers FROM ranking_policies p
     JOIN ranking_policy_versions v ON v.policy_id = p.id AND v.version = p.active_version
     WHERE p.organization_id = $1 AND p.status = 'active'`, [organizationId]);
  const row = r.rows[0];
  return row ? { id: row.id, version: row.version, weights: row.weights, tieBreakers: row.tie_breakers } : DEFAULT_POLICY;
}
