import { AUDIT_ACTIONS } from '../audit/audit-actions.js';
import { getInitialSnapshot } from 'xstate';
import { resolutionMachine, type ResolutionInput } from '../../../machines/resolution-machine.js';
import type { AuditEntry } from '../../persistence/audit-log.js';
import type { OutboxEvent } from '../../persistence/event-outbox.js';
import type { ResolutionEvent, ResolutionRow } from '../../persistence/resolution-repository.js';
import type { ResolutionDemand } from '../../persistence/resolution-demand.js';
import type { StepCause, TimerRequest } from '../../persistence/actor-store.js';
import type { Caller } from '../caller.js';
import { auditActor } from '../caller.js';
import { calendarEventData, outboxEvent, resolutionEventData, resolutionPartialData } from '../event-data.js';
import { stepCause } from '../step-cause.js';
import type { FeedIncident } from './calendar-feeds.js';
import type { ResolutionDecision } from './decide-resolution.js';
import type { ResolutionInputs } from './gather-resolution-inputs.js';
import type { ResolutionRecord } from './resolution-record.js';
import type { ResolutionRequest } from './resolution-request.js';
import { resolutionDemandOf } from './resolution-demand-of.js';
import type { UnknownProviders } from './review-hand-off.js';

/** Every write a resolution makes, planned without I/O; commitResolution performs them. */
export type ResolutionWritePlan =
  | {
      refused: true;
      /** Unknown providers handed to manual review. */
      review: UnknownProviders;
      /** Calendar feed incidents, stored in one transaction. */
      incidents: OutboxEvent[];
    }
  | {
      refused: false;
      review: UnknownProviders;
      /** The ledger row, its demand (network adequacy), its events (incidents included) and audit entry: one statement, one transaction. */
      ledger: {
        row: ResolutionRow;
        mode: 'live' | 'test';
        events: ResolutionEvent[];
        audit: AuditEntry;
        demand: ResolutionDemand;
      };
      /** The answer and option data kept in Redis beside the actor, with the graph snapshot it refers to. */
      record: ResolutionRecord;
      /** The resolution actor, created after the ledger commits, with its expiry timer. */
      actor: { input: ResolutionInput; timers: TimerRequest[]; expireAt: Date; causedBy: StepCause };
    };

const MINUTE_MS = 60_000;
/** How long a resolution actor's keys live in Redis. */
const RESOLUTION_ACTOR_TTL_MS = 24 * 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The data of a calendar feed incident's event. */
function incidentData(i: FeedIncident) {
  return calendarEventData({
    providerId: i.connection.providerId,
    calendarConnectionId: i.connection.id,
    reason: i.reason,
  });
}

/**
 * Plans a resolution's writes from its inputs and decision, without I/O. The ledger row's status is the resolution
 * machine's first state for the outcome (the machine decides every status; expiry later moves it, see
 * expireResolution).
 */
export function planResolutionWrites(
  inputs: ResolutionInputs,
  caller: Caller,
  req: ResolutionRequest,
  decision: ResolutionDecision,
  ids: { resolutionId: string },
  expiresAt: Date,
): ResolutionWritePlan {
  const { now, graph } = inputs;
  const { outcome } = decision;
  // Manual review is recorded by a worker (CONTRACT part 7): the request hands its unknown providers off, grouped
  // by reasons as screening found them, and writes no review row itself.
  const review: UnknownProviders = {
    organizationId: caller.organizationId,
    platformId: caller.platformId,
    graphVersion: graph.graphVersion,
    seenAt: now,
    providerIdAt: graph.providerIdAt,
    groups: outcome.reviewGroups,
  };
  const at = {
    platformId: caller.platformId,
    organizationId: caller.organizationId,
    mode: caller.mode,
    createdAt: now,
  };
  if (decision.refused)
    return { refused: true, review, incidents: inputs.incidents.map((i) => outboxEvent(i.type, incidentData(i), at)) };

  const { response } = decision;
  const id = ids.resolutionId;
  const policyRef = response.policy;
  const actorInput: ResolutionInput = {
    resolutionId: id,
    organizationId: caller.organizationId,
    outcome: response.status as 'resolved' | 'zero_results',
    expiresAt: expiresAt.toISOString(),
  };
  const status = String(getInitialSnapshot(resolutionMachine, actorInput).value);
  const base = {
    resolutionId: id,
    status: response.status as 'resolved' | 'zero_results',
    optionsReturned: outcome.options.length,
    requestId: caller.requestId,
  };
  const unknownCount = outcome.unknownProviderIds.length;
  // resolution.partial accompanies the outcome's own event rather than replacing it: a subscriber to
  // resolution.resolved or resolution.zero_results sees every resolution, and one to resolution.partial every
  // resolution where unknown provider data kept providers out (CONTRACT part 4).
  const events: ResolutionEvent[] = [
    {
      type: response.status === 'resolved' ? 'resolution.resolved' : 'resolution.zero_results',
      data: resolutionEventData(base),
    },
    ...(unknownCount > 0 ? [{ type: 'resolution.partial', data: resolutionPartialData(base, unknownCount) }] : []),
    ...inputs.incidents.map((i) => ({ type: i.type, data: incidentData(i) })),
  ];
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
      serviceSlug: inputs.slug,
      constraints: req.constraints,
      evaluatedAt: now.toISOString(),
      dateRange: { from: inputs.window.from, to: inputs.window.to },
      licenseExpired: outcome.licenseExpired,
      noAvailability: outcome.noAvailabilityProviderIds.map((pid) => ({
        providerId: pid,
        status: outcome.availability.get(pid)?.status ?? 'not_checked',
      })),
      rankedProviderIds: [...new Set(outcome.options.map((o) => o.providerId))],
    },
  };
  return {
    refused: false,
    review,
    ledger: {
      row: {
        id,
        platformId: caller.platformId,
        organizationId: caller.organizationId,
        status,
        requestId: caller.requestId,
        serviceSlug: inputs.slug,
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
      demand: resolutionDemandOf(
        req.constraints,
        outcome.options.map((o) => o.slot.start),
        outcome.exclusionSummary,
        now,
      ),
      audit: {
        platformId: caller.platformId,
        organizationId: caller.organizationId,
        actor: auditActor(caller),
        ...AUDIT_ACTIONS.resolutionCreate,
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
    },
    record,
    actor: {
      input: actorInput,
      timers: [{ name: 'expire', dueAt: expiresAt }],
      expireAt: new Date(now.getTime() + RESOLUTION_ACTOR_TTL_MS),
      causedBy: stepCause(caller),
    },
  };
}
