import { ServiceError } from '../../errors/service-error.js';
import { compileEligibilityRequest, evaluateProvider, type ProviderEligibility } from '../../domain/eligibility.js';
import { licenseEndsBeforeFreeSlotDetail } from '../../domain/eligibility/license-expiry-text.js';
import { decodeCursor, encodeCursor } from '../../contract/pagination.js';
import type { ResolutionDeps } from './resolution-deps.js';
import type { ResolutionRecord } from './resolution-record.js';

/** One candidate as answered. */
export interface CandidateView {
  providerId: string;
  displayName: string;
  eligibilityStatus: 'matched' | 'excluded' | 'unknown';
  exclusions: {
    code: string;
    field: string;
    required: unknown[];
    actual: unknown[];
    sourceStatus: string;
    status: string;
    detail?: string;
  }[];
  matchedConstraints: {
    code: string;
    field: string;
    status: string;
    required: unknown[];
    actual: unknown[];
    sourceStatus: string;
  }[];
  rank: number | null;
}

/**
 * Rebuilds every provider's candidate record of a resolution: eligibility is deterministic, so it is
 * re-evaluated on the graph snapshot the resolution used, at the instant it was made; availability
 * outcomes come from the resolution record. Order: matched providers in rank order, then the rest by id.
 */
export async function buildCandidates(
  deps: Pick<ResolutionDeps, 'records' | 'orgGraphs'>,
  record: ResolutionRecord,
): Promise<CandidateView[]> {
  const c = record.candidates;
  let snapshot = await deps.records.loadSnapshot(record.organizationId, c.graphVersion);
  if (!snapshot) {
    const graph = await deps.orgGraphs(record.organizationId);
    if (graph.graphVersion !== c.graphVersion)
      throw new ServiceError('SERVICE_UNAVAILABLE', 'The graph snapshot of this resolution is no longer available.', {
        retryAfter: 1,
      });
    await deps.records.ensureSnapshot(graph);
    snapshot = {
      providers: graph.providers,
      offering: Object.fromEntries([...graph.servicesBySlug].map(([s, m]) => [s, [...m.keys()]])),
    };
  }
  const compiled = compileEligibilityRequest(c.constraints, { now: new Date(c.evaluatedAt), range: c.dateRange });
  const licenseEnded = new Map((c.licenseExpired ?? []).map((x) => [x.providerId, x.expiresAt]));
  const offering = new Set(snapshot.offering[c.serviceSlug] ?? []);
  const noAvail = new Map(c.noAvailability.map((n) => [n.providerId, n.status]));
  const rankOf = new Map<string, number>();
  for (const o of record.response.options as { provider: { id: string }; rank: number }[])
    if (!rankOf.has(o.provider.id)) rankOf.set(o.provider.id, o.rank);
  const views: CandidateView[] = snapshot.providers.map((p) => {
    const e: ProviderEligibility = evaluateProvider(p, compiled, offering.has(p.id));
    const exclusions: CandidateView['exclusions'] = e.exclusions.map((x) => ({
      code: x.code as string,
      field: x.field,
      required: [...x.required],
      actual: [...x.actual],
      sourceStatus: x.sourceStatus,
      status: x.status as string,
      ...(x.detail === undefined ? {} : { detail: x.detail }),
    }));
    let status = e.status;
    const availability = noAvail.get(p.id);
    const endedOn = licenseEnded.get(p.id);
    if (status === 'matched' && endedOn !== undefined) {
      status = 'excluded';
      exclusions.push({
        code: 'LICENSE_EXPIRED',
        field: 'licenseRegionCodes',
        required: [...(c.constraints.licenseRegionCodes ?? [])],
        actual: [...new Set(p.licenseRecords.map((r) => r.regionCode))],
        sourceStatus: 'verified',
        status: 'failed',
        detail: licenseEndsBeforeFreeSlotDetail(endedOn),
      });
    } else if (status === 'matched' && availability !== undefined) {
      status = 'excluded';
      exclusions.push({
        code: 'NO_VERIFIED_AVAILABILITY',
        field: 'availability',
        required: ['verified_available'],
        actual: [availability],
        sourceStatus: availability === 'calendar_disconnected' ? 'missing' : 'verified',
        status: 'failed',
      });
    }
    return {
      providerId: p.id,
      displayName: p.displayName,
      eligibilityStatus: status,
      exclusions,
      matchedConstraints: e.matchedConstraints.map((m) => ({
        code: m.code as string,
        field: m.field,
        status: m.status as string,
        required: [...m.required],
        actual: [...m.actual],
        sourceStatus: m.sourceStatus as string,
      })),
      rank: rankOf.get(p.id) ?? null,
    };
  });
  const ranked = new Map(c.rankedProviderIds.map((id, i) => [id, i]));
  views.sort((a, b) => {
    const am = a.eligibilityStatus === 'matched' ? 0 : 1;
    const bm = b.eligibilityStatus === 'matched' ? 0 : 1;
    if (am !== bm) return am - bm;
    const ar = ranked.get(a.providerId) ?? Infinity;
    const br = ranked.get(b.providerId) ?? Infinity;
    if (ar !== br) return ar - br;
    return a.providerId < b.providerId ? -1 : a.providerId > b.providerId ? 1 : 0;
  });
  return views;
}

/** Filters and pages candidate records (offset cursor over a deterministic order). */
export function pageCandidates(
  all: CandidateView[],
  q: {
    status?: string | undefined;
    exclusionCode?: string | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  },
) {
  const want = q.status === 'eligible' ? 'matched' : q.status;
  const filtered = all.filter(
    (v) =>
      (want === undefined || v.eligibilityStatus === want) &&
      (q.exclusionCode === undefined || v.exclusions.some((x) => x.code === q.exclusionCode)),
  );
  const pos = decodeCursor(q.cursor);
  const offset = pos === undefined ? 0 : Number(pos.replace(/^o:/, ''));
  if (!Number.isInteger(offset) || offset < 0)
    throw new ServiceError('VALIDATION_ERROR', 'cursor is not one this service issued.', {
      field: 'cursor',
      details: [{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }],
    });
  const limit = q.limit ?? 50;
  const pageItems = filtered.slice(offset, offset + limit);
  const hasMore = offset + limit < filtered.length;
  const summary = { total: all.length, matched: 0, excluded: 0, unknown: 0 };
  for (const v of all) summary[v.eligibilityStatus]++;
  return { candidates: pageItems, summary, hasMore, nextCursor: hasMore ? encodeCursor(`o:${offset + limit}`) : null };
}
