import type { AppDeps } from '../app-deps.js';
import type { IdempotencyStore } from '../idempotency.js';
import type { ActorChanges } from '../../persistence/actor-changes.js';
import type { ActorStore } from '../../persistence/actor-store.js';
import type { DurableTimers } from '../../persistence/durable-timers.js';
import type { OrgGraphCache } from './org-graph.js';
import type { ResolutionRecords } from './resolution-record.js';
import type { CalendarFeeds } from './calendar-feeds.js';
import type { OrganizationCache } from '../organization-cache.js';
import type { CredentialCache } from '../credential-cache.js';
import type { ReviewQueue } from '../../persistence/review-queue.js';
import type { ReviewHandOff } from './review-hand-off.js';
import type { NetworkAdequacyDemand } from '../../persistence/network-adequacy-demand.js';

/** What resolutions, holds and bookings need beyond the base dependencies. */
export interface ResolutionDeps extends AppDeps {
  actors: ActorStore;
  /** Announcements of actor steps, for live follows (one subscriber connection, opened on first use). */
  actorChanges: ActorChanges;
  timers: DurableTimers;
  idempotency: IdempotencyStore;
  orgGraphs: OrgGraphCache;
  records: ResolutionRecords;
  feeds: CalendarFeeds;
  /** Cached key and organization lookups of authentication. */
  credentials: CredentialCache;
  /** The stream manual review is handed off on, drained by the review-recorder worker. */
  reviewQueue: ReviewQueue;
  /** Hands a resolution's unknown providers to manual review (once per set and window). */
  reviewHandOff: ReviewHandOff;
  /** Organization rows, dropped when any process commits a change to one. */
  organizations: OrganizationCache;
  /** Network adequacy's demand side, with the rolled-up days it has read kept in memory. */
  adequacyDemand: NetworkAdequacyDemand;
}
