import { createReviewRecorder, type ReviewRecorder } from '../../src/workers/review-recorder.js';
import type { TestService } from './test-service.js';

const recorders = new WeakMap<TestService, ReviewRecorder>();

/**
 * Records every manual-review sighting handed off so far (what the service's review-recorder worker does within
 * moments), so a test reads manual review without waiting on the worker's poll.
 */
export async function recordHandedOffReview(svc: TestService): Promise<void> {
  let recorder = recorders.get(svc);
  if (!recorder) {
    const { db, reviewQueue } = svc.service.deps;
    recorder = createReviewRecorder({ db, queue: reviewQueue, log: () => undefined });
    recorders.set(svc, recorder);
  }
  await recorder.flush({ timeoutMs: 10_000 });
}
