import {
  BookingStatus,
  BookingV2_Source,
  Candidate_EligibilityStatus,
  Hold_Status,
  ResolutionStatus,
  type BookingV2,
  type Candidate,
  type CandidatesPage,
  type ConstraintRecord,
  type ConstraintValue,
  type Hold,
  type Resolution,
  type ResolutionOption,
  type ResolutionSummary,
} from '../../gen/scheduling/v1/resources.js';

/*
 * The messages of ResolutionService, built field by field from the REST answers the resolution, hold and confirmation
 * logic returns (and an Idempotency-Key replays as first answered): instants as `Date`, enums by an explicit table,
 * a null as an unset field.
 */

/** Any JSON object of an answer. */
type Json = Record<string, any>;

const RESOLUTION_STATUS: Record<string, ResolutionStatus> = {
  resolved: ResolutionStatus.RESOLUTION_STATUS_RESOLVED,
  zero_results: ResolutionStatus.RESOLUTION_STATUS_ZERO_RESULTS,
};

const ELIGIBILITY_STATUS: Record<string, Candidate_EligibilityStatus> = {
  matched: Candidate_EligibilityStatus.ELIGIBILITY_STATUS_MATCHED,
  excluded: Candidate_EligibilityStatus.ELIGIBILITY_STATUS_EXCLUDED,
  unknown: Candidate_EligibilityStatus.ELIGIBILITY_STATUS_UNKNOWN,
};

const HOLD_STATUS: Record<string, Hold_Status> = {
  active: Hold_Status.STATUS_ACTIVE,
  released: Hold_Status.STATUS_RELEASED,
  expired: Hold_Status.STATUS_EXPIRED,
};

const BOOKING_STATUS: Record<string, BookingStatus> = {
  pending: BookingStatus.BOOKING_STATUS_PENDING,
  confirmed: BookingStatus.BOOKING_STATUS_CONFIRMED,
  cancelled: BookingStatus.BOOKING_STATUS_CANCELLED,
};

const BOOKING_SOURCE: Record<string, BookingV2_Source> = {
  v1: BookingV2_Source.SOURCE_V1,
  v2: BookingV2_Source.SOURCE_V2,
};

/** An instant of an answer (ISO text or Date); null or absent: unset. */
function instant(v: unknown): Date | undefined {
  if (v === null || v === undefined) return undefined;
  return v instanceof Date ? v : new Date(String(v));
}

/** A text that may be null: unset when null. */
function optionalText(v: unknown): string | undefined {
  return v === null || v === undefined ? undefined : String(v);
}

/** One value a constraint asks for or a provider has. */
function constraintValue(v: unknown): ConstraintValue {
  if (typeof v === 'number') return { kind: { $case: 'number', value: v } };
  if (typeof v === 'boolean') return { kind: { $case: 'flag', value: v } };
  return { kind: { $case: 'text', value: String(v) } };
}

const constraintValues = (vs: unknown): ConstraintValue[] => (Array.isArray(vs) ? vs.map(constraintValue) : []);

/** A constraint as evaluated for a provider. */
function constraintRecordMessage(c: Json): ConstraintRecord {
  return {
    code: c.code,
    field: c.field,
    status: c.status,
    requiredValues: constraintValues(c.required),
    actualValues: constraintValues(c.actual),
    sourceStatus: c.sourceStatus,
  };
}

/** A warning of a resolution or option. */
function warningMessage(w: Json) {
  return {
    code: w.code,
    message: w.message,
    ...(w.providerId !== undefined ? { providerId: w.providerId } : {}),
    ...(w.field !== undefined ? { field: w.field } : {}),
  };
}

/** One option of a resolution. */
function optionMessage(o: Json): ResolutionOption {
  return {
    optionId: o.optionId,
    rank: o.rank,
    provider: { id: o.provider.id, externalId: o.provider.externalId, displayName: o.provider.displayName },
    service: { id: o.service.id, displayName: o.service.displayName, durationMinutes: o.service.durationMinutes },
    slot: { start: instant(o.slot.start), end: instant(o.slot.end), timezone: o.slot.timezone },
    availabilityStatus: o.availabilityStatus,
    availabilityCheckedAt: instant(o.availabilityCheckedAt),
    score: o.score,
    matchedConstraints: (o.matchedConstraints ?? []).map(constraintRecordMessage),
    rankingFactors: (o.rankingFactors ?? []).map((f: Json) => ({ code: f.code, points: f.points })),
    reason: o.reason,
    warnings: (o.warnings ?? []).map(warningMessage),
  };
}

/** The `Resolution` message of a resolution's answer. */
export function resolutionMessage(r: Json): Resolution {
  const s = r.summary ?? {};
  return {
    resolutionId: r.resolutionId,
    resolutionStatus: RESOLUTION_STATUS[r.status] ?? ResolutionStatus.RESOLUTION_STATUS_UNSPECIFIED,
    requestId: r.requestId,
    organizationId: r.organizationId,
    policy: { id: r.policy?.id, version: r.policy?.version },
    providerGraphVersion: r.providerGraphVersion,
    createdAt: instant(r.createdAt),
    expiresAt: instant(r.expiresAt),
    summary: {
      providersScanned: s.providersScanned,
      eligibleProviders: s.eligibleProviders,
      providersWithVerifiedAvailability: s.providersWithVerifiedAvailability,
      optionsReturned: s.optionsReturned,
      evaluatedSlots: s.evaluatedSlots,
    },
    options: (r.options ?? []).map(optionMessage),
    exclusionSummary: { ...(r.exclusionSummary ?? {}) },
    warnings: (r.warnings ?? []).map(warningMessage),
    totalProviders: r.totalProviders ?? undefined,
    evaluatedSlots: r.evaluatedSlots ?? undefined,
    zeroResultReasons:
      r.zeroResultReasons === undefined
        ? undefined
        : r.zeroResultReasons.map((z: Json) => ({
            reasonCode: z.reasonCode,
            description: z.description,
            affectedProviders: z.affectedProviders,
            suggestion: z.suggestion,
          })),
  };
}

/** The `ResolutionSummary` message of a resolution's ledger entry (GET /api/v2/resolutions). */
export function resolutionSummaryMessage(r: Json): ResolutionSummary {
  return {
    id: r.id,
    resolutionStatus: RESOLUTION_STATUS[r.status] ?? ResolutionStatus.RESOLUTION_STATUS_UNSPECIFIED,
    requestId: r.requestId,
    serviceSlug: r.serviceSlug,
    policyId: r.policyId,
    policyVersion: r.policyVersion,
    graphVersion: r.graphVersion,
    optionsReturned: r.optionsReturned,
    evaluatedSlots: r.evaluatedSlots,
    providersScanned: r.providersScanned,
    bookingId: optionalText(r.bookingId),
    createdAt: instant(r.createdAt),
    expiresAt: instant(r.expiresAt),
  };
}

/** One candidate of a resolution. */
function candidateMessage(c: Json): Candidate {
  return {
    providerId: c.providerId,
    displayName: c.displayName,
    eligibilityStatus:
      ELIGIBILITY_STATUS[c.eligibilityStatus] ?? Candidate_EligibilityStatus.ELIGIBILITY_STATUS_UNSPECIFIED,
    exclusions: (c.exclusions ?? []).map((e: Json) => ({
      code: e.code,
      field: e.field,
      requiredValues: constraintValues(e.required),
      actualValues: constraintValues(e.actual),
      sourceStatus: e.sourceStatus,
      status: e.status,
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
    })),
    matchedConstraints: (c.matchedConstraints ?? []).map(constraintRecordMessage),
    rank: c.rank ?? undefined,
  };
}

/** The `CandidatesPage` message of a page of a resolution's candidates. */
export function candidatesPageMessage(p: Json): CandidatesPage {
  return {
    resolutionId: p.resolutionId,
    candidates: (p.candidates ?? []).map(candidateMessage),
    summary: {
      total: p.summary.total,
      matched: p.summary.matched,
      excluded: p.summary.excluded,
      unknown: p.summary.unknown,
    },
    hasMore: p.hasMore,
    nextPageToken: optionalText(p.nextCursor),
  };
}

/** The `Hold` message of a hold's answer. */
export function holdMessage(h: Json): Hold {
  return {
    holdId: h.holdId,
    resolutionId: h.resolutionId,
    optionId: h.optionId,
    status: HOLD_STATUS[h.status] ?? Hold_Status.STATUS_UNSPECIFIED,
    expiresAt: instant(h.expiresAt),
    releasedAt: instant(h.releasedAt),
    bookingId: optionalText(h.bookingId),
  };
}

/**
 * The `BookingV2` message of a booking's stored v2 answer (a confirm's, replayed under its Idempotency-Key); of a row:
 * booking-message.ts. The provider's `username` is the one stored with the answer (answers stored before it was have
 * none). `confirmation_url` stays unset: a booking confirmed from a resolution is confirmed at once and has no
 * confirmation link (no token).
 */
export function bookingV2MessageOfAnswer(b: Json): BookingV2 {
  return {
    id: b.id,
    organizationId: b.organizationId,
    resolutionId: optionalText(b.resolutionId),
    optionId: optionalText(b.optionId),
    bookingStatus: BOOKING_STATUS[b.status] ?? BookingStatus.BOOKING_STATUS_UNSPECIFIED,
    provider: { id: b.provider.id, displayName: b.provider.displayName, username: optionalText(b.provider.username) },
    service: { id: b.service.id, displayName: b.service.displayName, durationMinutes: b.service.durationMinutes },
    customer: {
      name: b.customer.name,
      email: b.customer.email,
      timezone: optionalText(b.customer.timezone),
      ...(b.customer.lastname !== undefined ? { lastname: b.customer.lastname } : {}),
    },
    slot: { start: instant(b.slot.start), end: instant(b.slot.end), timezone: b.slot.timezone },
    metadata: b.metadata ?? {},
    source: BOOKING_SOURCE[b.source] ?? BookingV2_Source.SOURCE_UNSPECIFIED,
    rescheduledFrom: optionalText(b.rescheduledFrom),
    rescheduledTo: optionalText(b.rescheduledTo),
    cancelledAt: instant(b.cancelledAt),
    createdAt: instant(b.createdAt),
    updatedAt: instant(b.updatedAt),
  };
}
