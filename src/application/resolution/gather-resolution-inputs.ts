import { ServiceError } from '../../errors/service-error.js';
import type { DateWindow } from '../../domain/availability/date-window.js';
import type { Interval } from '../../domain/availability/busy-intervals.js';
import { screenRequest, type FeedState, type ScreenedRequest } from '../../domain/resolution/compute-resolution.js';
import type { ProviderService } from '../../domain/provider.js';
import { DEFAULT_POLICY, type RankingPolicy } from '../../domain/ranking/ranking-policy.js';
import { readBusyTime, readResolutionContext } from '../../persistence/resolution-repository.js';
import { continuityProviderIds } from '../../persistence/continuity-repository.js';
import { findServiceOrganization } from '../../persistence/service-repository.js';
import { phaseTimer } from '../../observability/phase-timer.js';
import type { Caller } from '../caller.js';
import type { FeedIncident } from './calendar-feeds.js';
import type { OrgGraph } from './org-graph.js';
import type { ResolutionDeps } from './resolution-deps.js';
import type { ResolutionRequest } from './resolution-request.js';
import { resolvePolicy } from './resolve-policy.js';

/** Everything a resolution is computed from, read once: nothing after this step reads a store. */
export interface ResolutionInputs {
  now: Date;
  window: DateWindow;
  graph: OrgGraph;
  /** The session type (service slug) the request names. */
  slug: string;
  policy: RankingPolicy;
  allowUnverifiable: boolean;
  offering: ReturnType<OrgGraph['offeringOf']>;
  servicesOfSlug: ReadonlyMap<string, ProviderService>;
  screened: ScreenedRequest;
  busy: Map<string, Interval[]>;
  workload: Map<string, number>;
  continuityProviderIds: Set<string>;
  feeds: Map<string, FeedState>;
  /** Calendar feed health changes observed while reading the feeds (stored as events). */
  incidents: FeedIncident[];
}

const DAY_MS = 86_400_000;

/** Finds the session type a request names: a service of this organization (or, for v1, a slug). */
async function findSessionType(
  deps: Pick<ResolutionDeps, 'db'>,
  caller: Caller,
  req: ResolutionRequest,
  graph: OrgGraph,
): Promise<string> {
  const svc = graph.serviceById.get(req.service);
  if (svc) return svc.slug;
  if (req.acceptSlug && graph.servicesBySlug.has(req.service)) return req.service;
  const owner = await findServiceOrganization(deps.db, req.service);
  // The request's field (a v1 REST `service`: the gateway names it so).
  const field = 'serviceId';
  if (owner !== undefined && owner !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', 'The service belongs to another organization.', { field });
  throw new ServiceError('SERVICE_NOT_FOUND', undefined, { field });
}

/**
 * Reads what a resolution needs (organization settings, provider graph, policy, busy time, continuity, calendar
 * feeds) for a request whose date window is already parsed; screening runs here because it decides whose busy time
 * is read.
 */
export async function gatherResolutionInputs(
  deps: Pick<ResolutionDeps, 'db' | 'clock' | 'metrics' | 'orgGraphs' | 'feeds'>,
  caller: Caller,
  req: ResolutionRequest,
  window: DateWindow,
): Promise<ResolutionInputs> {
  const now = deps.clock();
  const phase = phaseTimer(deps.metrics.resolutionPhase);
  const context = await readResolutionContext(deps.db, caller.organizationId);
  phase('context');
  const graph = await deps.orgGraphs(caller.organizationId, context.graphVersion);
  phase('graph');
  const slug = await findSessionType(deps, caller, req, graph);
  const policy =
    req.policyId === undefined
      ? (context.activePolicy ?? DEFAULT_POLICY)
      : await resolvePolicy(deps.db, caller.organizationId, req.policyId);
  const servicesOfSlug: ReadonlyMap<string, ProviderService> =
    graph.servicesBySlug.get(slug) ?? new Map<string, ProviderService>();
  const offering = graph.offeringOf(slug);
  const screened = screenRequest({
    index: graph.eligibilityIndex,
    offering,
    constraints: req.constraints,
    now,
    window,
  });
  const matchedIds = screened.screen.matched.map((i) => graph.providerIdAt(i));
  phase('screen');
  // Busy time is read over the window widened by two days on each side: local dates differ by zone.
  const from = Date.parse(`${window.from}T00:00:00Z`) - 2 * DAY_MS;
  const to = Date.parse(`${window.to}T00:00:00Z`) + 2 * DAY_MS;
  const [{ busy, workload }, continuity] = await Promise.all([
    readBusyTime(deps.db, caller.organizationId, matchedIds, from, to, now),
    req.preferences.clientRef
      ? continuityProviderIds(deps.db, { organizationId: caller.organizationId, clientRef: req.preferences.clientRef })
      : Promise.resolve([]),
  ]);
  phase('busy');
  const incidents: FeedIncident[] = [];
  const feedConnections = graph.feedSchedules.filter((c) => servicesOfSlug.has(c.providerId));
  const feeds = await deps.feeds.states(feedConnections, incidents);
  phase('feeds');
  return {
    now,
    window,
    graph,
    slug,
    policy,
    allowUnverifiable: context.allowUnverifiable,
    offering,
    servicesOfSlug,
    screened,
    busy,
    workload,
    continuityProviderIds: new Set(continuity),
    feeds,
    incidents,
  };
}
