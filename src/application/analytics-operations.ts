import { parseInput } from '../contract/parse-input.js';
import { AnalyticsQuery } from '../contract/schemas/analytics.js';
import { NetworkAdequacyQuery } from '../contract/schemas/analytics.js';
import { readAnalyticsCounts } from '../persistence/analytics-counts.js';
import type { ResolutionDeps } from './resolution/resolution-deps.js';
import type { OperationTable } from './operation.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

const PERIOD_DAYS = { last_7_days: 7, last_30_days: 30, last_90_days: 90 } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

const round = (n: number, decimals: number) => Math.round(n * 10 ** decimals) / 10 ** decimals;

/** The period `(now - N days, now]` of a period name (default last_30_days). */
function periodWindow(name: keyof typeof PERIOD_DAYS | undefined, now: Date) {
  const period = name ?? 'last_30_days';
  return { period, from: new Date(now.getTime() - PERIOD_DAYS[period] * DAY_MS), to: now };
}

/**
 * AnalyticsService operations: resolution and booking metrics over a period ending now (SPEC part 2, CONTRACT part 7).
 * Resolutions count under the status they were made with; bookings count under their current status, and
 * `confirmed` includes completed bookings (every completed booking was confirmed first). Network adequacy reads the
 * same periods (CONTRACT part 8): what resolutions asked from the ledger, who serves it from the cached provider graph.
 */
export function createAnalyticsOperations(deps: ResolutionDeps): OperationTable {
  return {
    GetAnalytics: {
      audit: { ...AUDIT_ACTIONS.analyticsRead, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(AnalyticsQuery, input.query);
        const { period, from, to } = periodWindow(q.period, deps.clock());
        const { resolutions: r, bookings } = await readAnalyticsCounts(deps.db, caller.organizationId, from, to);
        return {
          resolutions: {
            total: r.total,
            resolved: r.resolved,
            zeroResults: r.zeroResults,
            avgEvaluatedSlots: round(r.avgEvaluatedSlots, 2),
          },
          bookings,
          conversionRate: r.total === 0 ? 0 : round(r.converted / r.total, 4),
          period,
        };
      },
    },
    GetNetworkAdequacy: {
      audit: { ...AUDIT_ACTIONS.analyticsNetworkAdequacyRead, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(NetworkAdequacyQuery, input.query);
        const { period, from, to } = periodWindow(q.period, deps.clock());
        const [demand, graph] = await Promise.all([
          deps.adequacyDemand.read(caller, q.dimension, from, to),
          deps.orgGraphs(caller.organizationId),
        ]);
        const serving = graph.servingOf(q.dimension, to.toISOString().slice(0, 10));
        return {
          period,
          dimension: q.dimension,
          rows: demand.map((r) => ({
            value: r.value,
            providers: serving.get(r.value)?.providers ?? 0,
            acceptingNewClients: serving.get(r.value)?.acceptingNewClients ?? 0,
            resolutions: r.resolutions,
            zeroResultRate: r.resolutions === 0 ? 0 : round(r.zeroResults / r.resolutions, 4),
            medianDaysToFirstOption: r.medianDays === null ? null : round(r.medianDays, 2),
            p90DaysToFirstOption: r.p90Days === null ? null : round(r.p90Days, 2),
            topExclusionCodes: r.topExclusionCodes,
          })),
        };
      },
    },
  };
}
