import { ServiceError } from '../../errors/service-error.js';
import type { Queryable } from '../../persistence/database.js';
import { findRankingPolicy, type RankingPolicyRecord } from '../../persistence/ranking-policy-repository.js';
import type { Caller } from '../../application/caller.js';

/** Reads a policy of the caller's organization: 404 POLICY_NOT_FOUND when unknown, 403 FORBIDDEN when another's. */
export async function policyOfCaller(
  db: Queryable,
  caller: Caller,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<RankingPolicyRecord> {
  const found = await findRankingPolicy(db, id, opts);
  if (!found) throw new ServiceError('POLICY_NOT_FOUND');
  if (found.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return found.policy;
}
