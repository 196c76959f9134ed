import { ServiceError } from '../../errors/service-error.js';
import { parseDateRange } from '../../domain/availability/date-window.js';
import type { EligibilityRequest } from '../../domain/eligibility.js';
import {
  computeResolution,
  screenRequest,
  type ResolutionOutcome,
} from '../../domain/resolution/compute-resolution.js';
import { optionReason } from '../../domain/ranking/option-reason.js';
import type { RankingPreferences } from '../../domain/ranking/rank-options.js';
import type { ProviderService } from '../../domain/provider.js';
import { storeEvent } from '../../persistence/event-outbox.js';
import { newId, randomHex } from '../../persistence/new-id.js';
import { resolutionActorKind } from '../../../machines/machine-versions.js';
import type { Caller } from '../caller.js';
import { auditActor } from '../caller.js';
import { readBusyTime, readResolutionContext, insertResolution } from '../../persistence/resolution-repository.js';
import { continuityProviderIds } from '../../persistence/continuity-repository.js';
import { findServiceOrganization } from '../../persistence/service-repository.js';
import { DEFAULT_POLICY } from '../../domain/ranking/ranking-policy.js';
import type { FeedIncident } from './calendar-feeds.js';
import {
  calendarEventData,
  outboxEvent,
  resolutionEventData,
  type EventDataByType,
  type EventType,
} from '../event-data.js';
import type { ResolutionDeps } from './resolution-deps.js';
import type { ResolutionRecord } from './resolution-record.js';
import { resolvePolicy } from './resolve-policy.js';
import { phaseTimer } from '../../observability/phase-timer.js';
import { stepCause } from '../step-cause.js';

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

const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE_MS = 60_000;

/** Finds the session type a request names: a service of this organization (or, for v1, a slug). */
async function findSessionType(
  deps: ResolutionDeps,
  caller: Caller,
  req: ResolutionRequest,
  services: Map<string, ProviderService>,
  slugs: Set<string>,
): Promise<string> {
  const svc = services.get(req.service);
  if (svc) return svc.slug;
  if (req.acceptSlug && slugs.has(req.service)) return req.service;
  const owner = await findServiceOrganization(deps.db, req.service);
  const field = req.acceptSlug ? 'service' : 'serviceId';
  if (owner !== undefined && owner !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', 'The service belongs to another organization.', { field });
  throw new ServiceError('SERVICE_NOT_FOUND', undefined, { field });
}

/** Builds the REST answer of a resolution from its outcome. */
function shapeResponse(p: {
  id: string;
  caller: Caller;
  now: Date;
  expiresAt: Date;
  graphVersion: number;
  policy: { id: string; version: number };
  outcome: ResolutionOutcome;
  preferences: RankingPreferences;
}) {
  const { outcome, now } = p;
  const optionWarnings = new Map<string, { code: string; message: string; providerId: string; field: string }[]>();
  const warnings: { code: string; message: string; providerId?: string; field?: string }[] = [];
  const options = outcome.options.map((o) => {
    const w: { code: string; message: string; providerId: string; field: string }[] = o.eligibility.warnings.map(
      (x) => ({ code: x.code, message: x.message, providerId: x.providerId, field: x.field }),
    );
    optionWarnings.set(o.providerId, w);
    if (o.availabilityStatus === 'unverifiable')
      w.push({
        code: 'AVAILABILITY_UNVERIFIABLE',
        message: 'The provider’s calendar could not be checked; confirm the time with the provider.',
        providerId: o.providerId,
        field: 'availabilityStatus',
      });
    return {
      optionId: `opt_${randomHex(8)}`,
      rank: o.rank,
      provider: { id: o.provider.id, externalId: o.provider.externalId, displayName: o.provider.displayName },
      service: { id: o.service.id, displayName: o.service.title, durationMinutes: o.service.duration },
      slot: { start: iso(o.slot.start), end: iso(o.slot.end), timezone: o.slot.timezone },
      availabilityStatus: o.availabilityStatus,
      availabilityCheckedAt: now.toISOString(),
      score: o.score,
      matchedConstraints: o.eligibility.matchedConstraints.map((m) => ({
        code: m.code,
        field: m.field,
        status: m.status,
        required: [...m.required],
        actual: [...m.actual],
        sourceStatus: m.sourceStatus,
      })),
      rankingFactors: o.rankingFactors.map((f) => ({ code: f.code, points: f.points })),
      reason: optionReason(
        o,
        { ...o.provider, timezone: o.provider.timezone ?? o.slot.timezone },
        o.eligibility.matchedConstraints,
        p.preferences,
      ),
      warnings: w,
    };
  });
  const seen = new Set<string>();
  for (const list of optionWarnings.values())
    for (const w of list) {
      const k = `${w.code}|${w.providerId}`;
      if (!seen.has(k)) {
        seen.add(k);
        warnings.push(w);
      }
    }
  const resolved = options.length > 0;
  return {
    resolutionId: p.id,
    status: resolved ? 'resolved' : 'zero_results',
    requestId: p.caller.requestId,
    organizationId: p.caller.organizationId,
    policy: p.policy,
    providerGraphVersion: p.graphVersion,
    createdAt: now.toISOString(),
    expiresAt: p.expiresAt.toISOString(),
    summary: outcome.summary,
    options,
    exclusionSummary: outcome.exclusionSummary,
    warnings,
    ...(resolved
      ? {}
      : {
          totalProviders: outcome.summary.providersScanned,
          evaluatedSlots: outcome.summary.evaluatedSlots,
          zeroResultReasons: outcome.zeroResultReasons,
        }),
  };
}

/** Runs a resolution end to end (CONTRACT part 4) and stores it; returns its REST answer. */
export async function createResolution(
  deps: ResolutionDeps,
  caller: Caller,
  req: ResolutionRequest,
): Promise<Record<string, any>> {
  const range = parseDateRange(req.dateRange);
  if (!range.ok) throw new ServiceError('INVALID_DATE_RANGE', range.problem.message, { field: range.problem.field });
  const now = deps.clock();
  const phase = phaseTimer(deps.metrics.resolutionPhase);
  const context = await readResolutionContext(deps.db, caller.organizationId);
  phase('context');
  const graph = await deps.orgGraphs(caller.organizationId, context.graphVersion);
  phase('graph');
  const slug = await findSessionType(deps, caller, req, graph.serviceById, new Set(graph.servicesBySlug.keys()));
  const policy =
    req.policyId === undefined
      ? (context.activePolicy ?? DEFAULT_POLICY)
      : await resolvePolicy(deps.db, caller.organizationId, req.policyId);
  const servicesOfSlug = graph.servicesBySlug.get(slug) ?? new Map<string, ProviderService>();
  const offering = graph.offeringOf(slug);
  const screened = screenRequest({ index: graph.eligibilityIndex, offering, constraints: req.constraints, now });
  const matchedIds = screened.screen.matched.map((i) => graph.providers[i]!.id);
  phase('screen');
  // Busy time is read over the window widened by two days on each side: local dates differ by zone.
  const from = Date.parse(`${range.window.from}T00:00:00Z`) - 2 * 86_400_000;
  const to = Date.parse(`${range.window.to}T00:00:00Z`) + 2 * 86_400_000;
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
  const outcome = computeResolution({
    index: graph.eligibilityIndex,
    offering,
    screened,
    servicesOfSlug,
    schedulesByProvider: graph.schedulesByProvider,
    constraints: req.constraints,
    preferences: req.preferences,
    window: range.window,
    maxOptionsPerProvider: req.maxOptionsPerProvider,
    policy,
    now,
    busyByProvider: busy,
    feedByProvider: feeds,
    workloadByProvider: workload,
    continuityProviderIds: new Set(continuity),
    allowUnverifiable: context.allowUnverifiable,
  });

  phase('compute');
  // Manual review is recorded by a worker (CONTRACT part 7): the request hands its unknown providers off, grouped
  // by reasons as screening found them, and writes no review row itself.
  const handOffReview = () =>
    deps.reviewHandOff({
      organizationId: caller.organizationId,
      platformId: caller.platformId,
      graphVersion: graph.graphVersion,
      seenAt: now,
      providers: graph.providers,
      groups: outcome.reviewGroups,
    });
  const unknownCount = outcome.unknownProviderIds.length;
  const storeIncidents = async (tx: Pick<typeof deps.db, 'query'>) => {
    for (const i of incidents) {
      await storeEvent(
        tx,
        outboxEvent(i.type, incidentData(i), {
          platformId: caller.platformId,
          organizationId: caller.organizationId,
          mode: caller.mode,
          createdAt: now,
        }),
      );
    }
  };
  if (outcome.licenseRegionRejected) {
    await Promise.all([
      handOffReview(),
      incidents.length > 0 ? deps.db.transaction(storeIncidents) : Promise.resolve(),
    ]);
    throw new ServiceError(
      'LICENSE_REGION_MISMATCH',
      'No provider holds an active, unexpired, verified license in the requested regions.',
      { field: 'constraints.licenseRegionCodes' },
    );
  }

  const id = newId('res', now.getTime());
  const expiresAt = new Date(now.getTime() + deps.config.resolutionTtlSeconds * 1000);
  const policyRef = { id: policy.id, version: policy.version ?? 1 };
  const response = shapeResponse({
    id,
    caller,
    now,
    expiresAt,
    graphVersion: graph.graphVersion,
    policy: policyRef,
    outcome,
    preferences: req.preferences,
  });
  const rankedProviderIds = [...new Set(outcome.options.map((o) => o.providerId))];
  const record: ResolutionRecord = {
    organizationId: caller.organizationId,
    platformId: caller.platformId,
    response,
    options: outcome.options.map((o, i) => {
      const before = (o.service.bufferBeforeMinutes ?? 0) * MINUTE_MS;
      const after = (o.service.bufferAfterMinutes ?? 0) * MINUTE_MS;
      return {
        optionId: response.options[i]!.optionId,
        providerId: o.providerId,
        serviceId: o.service.id,
        start: iso(o.slot.start),
        end: iso(o.slot.end),
        timezone: o.slot.timezone,
        claimStart: iso(o.slot.start - before),
        claimEnd: iso(o.slot.end + after),
      };
    }),
    candidates: {
      graphVersion: graph.graphVersion,
      serviceSlug: slug,
      constraints: req.constraints,
      evaluatedAt: now.toISOString(),
      noAvailability: outcome.noAvailabilityProviderIds.map((pid) => ({
        providerId: pid,
        status: outcome.availability.get(pid)?.status ?? 'not_checked',
      })),
      rankedProviderIds,
    },
  };
  const base = {
    resolutionId: id,
    status: response.status,
    optionsReturned: outcome.options.length,
    requestId: caller.requestId,
  };
  // resolution.partial accompanies the outcome's own event rather than replacing it: a subscriber to
  // resolution.resolved or resolution.zero_results sees every resolution, and one to resolution.partial every
  // resolution where unknown provider data kept providers out (CONTRACT part 4).
  const events: { type: EventType; data: EventDataByType[EventType] }[] = [
    {
      type: response.status === 'resolved' ? 'resolution.resolved' : 'resolution.zero_results',
      data: resolutionEventData(base),
    },
    ...(unknownCount > 0
      ? [{ type: 'resolution.partial' as const, data: resolutionEventData(base, unknownCount) }]
      : []),
    ...incidents.map((i) => ({ type: i.type, data: incidentData(i) })),
  ];
  // The ledger (one statement), the Redis record and actor and the review hand-off are written at once; a failure
  // answers an error and leaves at most an orphan that expires with its TTL (the idempotency key is not stored, so a
  // retry starts over), or review entries of providers that were indeed unknown.
  await Promise.all([
    handOffReview(),
    deps.records.ensureSnapshot(graph).then(() => deps.records.save(id, record)),
    deps.actors.create(
      resolutionActorKind,
      id,
      {
        resolutionId: id,
        organizationId: caller.organizationId,
        outcome: response.status as 'resolved' | 'zero_results',
        expiresAt: expiresAt.toISOString(),
      },
      {
        timers: [{ name: 'expire', dueAt: expiresAt }],
        expireAt: new Date(now.getTime() + 24 * 3600 * 1000),
        causedBy: stepCause(caller),
      },
    ),
    insertResolution(deps.db, {
      row: {
        id,
        platformId: caller.platformId,
        organizationId: caller.organizationId,
        status: response.status,
        requestId: caller.requestId,
        serviceSlug: slug,
        policyId: policyRef.id,
        policyVersion: policyRef.version,
        graphVersion: graph.graphVersion,
        optionsReturned: outcome.options.length,
        evaluatedSlots: outcome.summary.evaluatedSlots,
        providersScanned: outcome.summary.providersScanned,
        createdAt: now,
        expiresAt,
      },
      mode: caller.mode,
      events,
      audit: {
        platformId: caller.platformId,
        organizationId: caller.organizationId,
        actor: auditActor(caller),
        action: 'resolution.create',
        resourceType: 'resolution',
        resourceId: id,
        requestId: caller.requestId,
        before: null,
        after: {
          status: response.status,
          optionsReturned: outcome.options.length,
          policy: policyRef,
          providerGraphVersion: graph.graphVersion,
        },
        timestamp: now,
      },
    }),
  ]);
  phase('store');
  return response;
}

/** The data of a calendar feed incident's event. */
function incidentData(i: FeedIncident) {
  return calendarEventData({
    providerId: i.connection.providerId,
    calendarConnectionId: i.connection.id,
    reason: i.reason,
  });
}
