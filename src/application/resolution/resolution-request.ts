import type { EligibilityRequest } from '../../domain/eligibility.js';
import type { RankingPreferences } from '../../domain/ranking/rank-options.js';

/** A validated, normalized resolution request (v1 requests are mapped onto it). */
export interface ResolutionRequest {
  /** A service id (v2), or for v1 a service id or slug. */
  service: string;
  acceptSlug: boolean;
  constraints: EligibilityRequest;
  preferences: RankingPreferences & { clientRef?: string | undefined };
  dateRange: unknown;
  policyId?: string | undefined;
  maxOptionsPerProvider: number;
}
