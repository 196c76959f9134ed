import type { ResolveManualReviewRequest, ResolveManualReviewResponse } from '../../gen/scheduling/v1/care_service.js';
import { ManualReviewPath } from '../../contract/schemas/care.js';
import { ServiceError } from '../../errors/service-error.js';
import type { Database } from '../../persistence/database.js';
import { findManualReviewEntry, setManualReviewStatus } from '../../persistence/manual-review-repository.js';
import { findProviderRow } from '../../persistence/provider-repository.js';
import type { ReviewQueue } from '../../persistence/review-queue.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { REVIEW_SIGHTING_WINDOW_MS } from '../../application/resolution/review-hand-off.js';
import { RequestProblems, given } from '../request-problems.js';
import { manualReviewMessage } from '../messages/care-messages.js';
import { ensureOwned } from './owned-reference.js';

/** What ResolveManualReview uses. */
export interface ResolveManualReviewDeps {
  db: Database;
  clock: () => Date;
  reviewQueue: ReviewQueue;
}

/**
 * ResolveManualReview: marks a provider's manual-review entry resolved (once; a resolved one answers as it is),
 * audited as `manual_review.resolve`; a resolution that finds the provider unknown again reopens it at once.
 */
export async function resolveManualReview(
  deps: ResolveManualReviewDeps,
  caller: Caller,
  request: ResolveManualReviewRequest,
): Promise<ResolveManualReviewResponse> {
  const problems = new RequestProblems();
  const providerId = problems.check('providerId', ManualReviewPath.shape.providerId, given(request.providerId))!;
  problems.throwIfAny();
  ensureOwned(
    (await findProviderRow(deps.db, providerId))?.organization_id,
    caller,
    'PROVIDER_NOT_FOUND',
    'providerId',
  );
  const now = deps.clock();
  const { view, changed } = await deps.db.transaction(async (tx) => {
    const entryKey = { organizationId: caller.organizationId, providerId };
    const cur = await findManualReviewEntry(tx, entryKey, { forUpdate: true });
    if (!cur) throw new ServiceError('PROVIDER_NOT_FOUND', 'This provider has no manual-review entry.');
    if (cur.status === 'resolved') return { view: cur, changed: false };
    await setManualReviewStatus(tx, entryKey, { status: 'resolved', resolvedAt: now });
    const resolved = { ...cur, status: 'resolved' as const, resolvedAt: now.toISOString() };
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.manualReviewResolve,
      resourceId: providerId,
      before: cur,
      after: resolved,
    });
    return { view: resolved, changed: true };
  });
  // Resolutions hand the same unknown set off once a minute; after a resolve the next sighting must go through, so
  // that the entry reopens at once if the provider is unknown again (CONTRACT part 4). The resolve has committed: a
  // Redis failure here only delays that reopening by at most the window, it undoes nothing.
  if (changed)
    await deps.reviewQueue.noteResolved(caller.organizationId, now, REVIEW_SIGHTING_WINDOW_MS).catch(() => undefined);
  return { manualReviewEntry: manualReviewMessage(view) };
}
