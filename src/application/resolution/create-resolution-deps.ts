import type { AppDeps } from '../app-deps.js';
import { createActorChanges } from '../../persistence/actor-changes.js';
import { createActorStore } from '../../persistence/actor-store.js';
import { createDurableTimers } from '../../persistence/durable-timers.js';
import { createIdempotencyStore } from '../idempotency.js';
import { createOrgGraphCache } from './org-graph.js';
import { createGraphSnapshots } from './graph-snapshots.js';
import { createResolutionRecords } from './resolution-record.js';
import { createCalendarFeeds } from './calendar-feeds.js';
import { createFeedClient } from './feed-client.js';
import { queueFreedFeedTime } from '../../persistence/waitlist-offer-jobs.js';
import { OFFER_HORIZON_DAYS } from '../waitlist/offer-to-entry.js';
import type { ResolutionDeps } from './resolution-deps.js';
import { createCredentialCache } from '../credential-cache.js';
import { createReviewQueue } from '../../persistence/review-queue.js';
import { createReviewHandOff } from './review-hand-off.js';
import { createOrganizationCache } from '../organization-cache.js';
import { createOrganizationChanges } from '../../persistence/organization-changes.js';
import { createNetworkAdequacyDemand } from '../../persistence/network-adequacy-demand.js';
import { createDemandSumCache } from '../../persistence/demand-sum-cache.js';

/**
 * Weight of the sums over whole days network adequacy keeps (values, wait buckets and exclusion codes; ~15 MB of heap
 * at most): a period of a dimension takes ~150-1,500 (a few KB), all 15 of an organization ~10,000.
 */
const ADEQUACY_SUMS_MAX_WEIGHT = 1_000_000;
/**
 * Weight of the sums over settled hours of partial days network adequacy keeps (~15 MB of heap at most): an hour of a
 * dimension takes ~10-150, the ~96 hours the three periods of a dimension read ~1,000-15,000.
 */
const ADEQUACY_HOURS_MAX_WEIGHT = 1_000_000;

/**
 * Builds the actor runtime, timers, idempotency store, graph cache, feeds and the manual-review hand-off on top of the
 * base dependencies.
 */
export function createResolutionDeps(base: AppDeps): ResolutionDeps {
  const timers = createDurableTimers({ redis: base.redis });
  const reviewQueue = createReviewQueue({ redis: base.redis });
  const graphSnapshots = createGraphSnapshots({ db: base.db, clock: base.clock });
  return {
    ...base,
    timers,
    actors: createActorStore({ redis: base.redis, clock: base.clock, timers }),
    actorChanges: createActorChanges({ redis: base.redis }),
    idempotency: createIdempotencyStore({ redis: base.redis, db: base.db, clock: base.clock }),
    orgGraphs: createOrgGraphCache({
      db: base.db,
      clock: base.clock,
      maxBytes: base.config.graphCacheMaxBytes,
      maxProviders: base.config.graphCacheMaxProviders,
      snapshots: graphSnapshots,
      snapshotMinProviders: base.config.graphSnapshotMinProviders,
    }),
    records: createResolutionRecords({
      redis: base.redis,
      graphSnapshots,
      maxSnapshotBytes: Math.ceil(base.config.graphCacheMaxBytes / 2),
    }),
    feeds: createCalendarFeeds({
      clock: base.clock,
      client: createFeedClient({ allowInsecure: base.config.outboundAllowInsecureUrls, lookup: base.outboundLookup }),
      // Busy time gone from a feed frees time for the waitlist (CONTRACT part 8).
      onBusyFreed: async (c, freed) => {
        const now = base.clock();
        // Offers look OFFER_HORIZON_DAYS ahead; later time frees nothing an offer could use.
        const end = now.getTime() + OFFER_HORIZON_DAYS * 86_400_000;
        await queueFreedFeedTime(base.db, {
          organizationId: c.organizationId,
          providerId: c.providerId,
          intervals: freed.filter((i) => i.start < end).map((i) => ({ start: i.start, end: Math.min(i.end, end) })),
          now,
        });
      },
    }),
    credentials: createCredentialCache({ db: base.db }),
    reviewQueue,
    reviewHandOff: createReviewHandOff({ queue: reviewQueue }),
    organizations: createOrganizationCache({
      db: base.db,
      changes: createOrganizationChanges({ redis: base.redis }),
    }),
    adequacyDemand: createNetworkAdequacyDemand({
      db: base.db,
      sums: createDemandSumCache({ maxWeight: ADEQUACY_SUMS_MAX_WEIGHT }),
      hours: createDemandSumCache({ maxWeight: ADEQUACY_HOURS_MAX_WEIGHT }),
    }),
  };
}
