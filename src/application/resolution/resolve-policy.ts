import { ServiceError } from '../../errors/service-error.js';
import {
  DEFAULT_POLICY,
  type RankingPolicy,
  type TieBreaker,
  type RankingWeights,
} from '../../domain/ranking/ranking-policy.js';
import type { Queryable } from '../../persistence/database.js';
import {
  findActivePolicyOfOrganization,
  findPolicyWithActiveVersion,
} from '../../persistence/ranking-policy-repository.js';

/**
 * Picks the policy a resolution ranks with (CONTRACT part 7): the requested `policyId` (its active version),
 * else the organization's active policy, else the built-in default `{id: "default", version: 1}`.
 */
export async function resolvePolicy(
  db: Queryable,
  organizationId: string,
  policyId: string | undefined,
): Promise<RankingPolicy> {
  if (policyId === 'default') return DEFAULT_POLICY;
  if (policyId !== undefined) {
    const row = await findPolicyWithActiveVersion(db, policyId);
    if (!row) throw new ServiceError('POLICY_NOT_FOUND', undefined, { field: 'policyId' });
    if (row.organizationId !== organizationId) throw new ServiceError('FORBIDDEN', undefined, { field: 'policyId' });
    if (row.version === null)
      throw new ServiceError('VALIDATION_ERROR', 'The policy has never been activated; activate it first.', {
        field: 'policyId',
        details: [{ field: 'policyId', code: 'INVALID', message: 'has no activated version' }],
      });
    return {
      id: row.id,
      version: row.version,
      weights: row.weights as RankingWeights,
      tieBreakers: row.tieBreakers as TieBreaker[],
    };
  }
  return (await findActivePolicyOfOrganization(db, organizationId)) ?? DEFAULT_POLICY;
}
