import type { ConstraintExclusion } from './provider-eligibility.js';
import type { ProviderSet } from './provider-set.js';

/** One reason a provider is in manual review, as the manual-review API shows it (CONTRACT part 7). */
export interface ReviewReason {
  code: string;
  field: string;
  detail: string;
}

/** The manual-review reason of an unknown exclusion: what the request required and what the provider's data was. */
export function reviewReasonOf(
  x: Pick<ConstraintExclusion, 'code' | 'field' | 'required' | 'sourceStatus'>,
): ReviewReason {
  return {
    code: x.code,
    field: x.field,
    detail: `required ${JSON.stringify(x.required)}; provider data ${x.sourceStatus}`,
  };
}

/** Unknown providers of one screening that share the same manual-review reasons (in pipeline order). */
export interface ReviewGroup {
  reasons: readonly ReviewReason[];
  providers: ProviderSet;
}
