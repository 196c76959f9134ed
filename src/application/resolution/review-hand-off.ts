import { createHash } from 'node:crypto';
import type { ReviewGroup } from '../../domain/eligibility/review-reason.js';
import { positions } from '../../domain/eligibility/provider-set.js';
import type { ReviewQueue } from '../../persistence/review-queue.js';
import { withRedis } from '../../persistence/redis-client.js';

/**
 * How long the same set of unknown providers (same organization, graph version, constraints, hence same reasons) is
 * handed off once: within it a repeated sighting only moves `lastSeenAt` late, by less than this (CONTRACT part 7).
 */
export const REVIEW_SIGHTING_WINDOW_MS = 60_000;

/** What one resolution found unknown, as screening grouped it (positions are those of `providers`). */
export interface UnknownProviders {
  organizationId: string;
  platformId: string;
  graphVersion: number;
  seenAt: Date;
  /** The id of the provider at a position. */
  providerIdAt(i: number): string;
  groups: readonly ReviewGroup[];
}

/** Hands a resolution's unknown providers to the manual-review recorder; resolves once the hand-off is durable. */
export type ReviewHandOff = (unknown: UnknownProviders) => Promise<void>;

/** Names a set of unknown providers with their reasons: equal sets of one organization and graph version, equal names. */
function fingerprintOf(u: UnknownProviders): string {
  const h = createHash('sha256').update(`${u.organizationId}\n${u.graphVersion}\n`);
  for (const g of u.groups) {
    h.update(JSON.stringify(g.reasons));
    h.update(Buffer.from(g.providers.buffer, g.providers.byteOffset, g.providers.byteLength));
  }
  return h.digest('base64url');
}

/**
 * Builds the hand-off of manual review (CONTRACT part 7): a resolution costs a fingerprint of its unknown set (a hash
 * of a few bitsets) and, when this process handed the same set off within the window, one small Redis round trip to
 * confirm it is still recent. Otherwise the set goes to the review stream with its provider ids, once per window
 * across every process (the queue marks and appends atomically). The worker records it with the upsert of main.
 * `remembered` bounds the sets this process remembers handing off.
 */
export function createReviewHandOff(deps: { queue: ReviewQueue; remembered?: number }): ReviewHandOff {
  const max = deps.remembered ?? 1000;
  const sentAt = new Map<string, number>();
  return async (u) => {
    if (u.groups.length === 0) return;
    const fingerprint = fingerprintOf(u);
    const key = `${u.organizationId}:${fingerprint}`;
    const now = u.seenAt.getTime();
    const last = sentAt.get(key);
    if (
      last !== undefined &&
      now >= last &&
      now - last < REVIEW_SIGHTING_WINDOW_MS &&
      (await withRedis(() => deps.queue.isRecent(u.organizationId, fingerprint, u.seenAt, REVIEW_SIGHTING_WINDOW_MS)))
    )
      return;
    const groups = u.groups.map((g) => ({
      reasons: g.reasons,
      providerIds: positions(g.providers).map((i) => u.providerIdAt(i)),
    }));
    await withRedis(() =>
      deps.queue.offer(
        {
          organizationId: u.organizationId,
          platformId: u.platformId,
          graphVersion: u.graphVersion,
          seenAt: u.seenAt,
          groups,
        },
        fingerprint,
        REVIEW_SIGHTING_WINDOW_MS,
      ),
    );
    sentAt.delete(key);
    sentAt.set(key, now);
    if (sentAt.size > max) sentAt.delete(sentAt.keys().next().value as string);
  };
}
