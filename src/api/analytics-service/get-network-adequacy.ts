import type { z } from 'zod';
import {
  GetNetworkAdequacyRequest_Dimension as DimensionMessage,
  type GetNetworkAdequacyRequest,
  type GetNetworkAdequacyResponse,
} from '../../gen/scheduling/v1/analytics_service.js';
import { NetworkAdequacyQuery, type AdequacyDimension } from '../../contract/schemas/analytics.js';
import type { NetworkAdequacyDemand } from '../../persistence/network-adequacy-demand.js';
import type { OrgGraphCache } from '../../application/resolution/org-graph.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { analyticsPeriodWindow, readAnalyticsPeriod } from './analytics-period.js';
import { rounded } from './rounded.js';

/** What GetNetworkAdequacy uses. */
export interface GetNetworkAdequacyDeps {
  clock: () => Date;
  adequacyDemand: NetworkAdequacyDemand;
  orgGraphs: OrgGraphCache;
}

/** The dimension a request names; UNSPECIFIED: not given. */
const DIMENSION_OF: Partial<Record<DimensionMessage, z.infer<typeof AdequacyDimension>>> = {
  [DimensionMessage.DIMENSION_LANGUAGE]: 'language',
  [DimensionMessage.DIMENSION_LICENSE_REGION]: 'license_region',
  [DimensionMessage.DIMENSION_INSURANCE]: 'insurance',
  [DimensionMessage.DIMENSION_SPECIALTY]: 'specialty',
  [DimensionMessage.DIMENSION_MODALITY]: 'modality',
};

/**
 * GetNetworkAdequacy (CONTRACT part 8): for each value of `dimension` that resolutions of the period named, what they
 * asked (from the ledger's demand rows) beside who serves it today (from the cached provider graph), most asked first.
 */
export async function getNetworkAdequacy(
  deps: GetNetworkAdequacyDeps,
  caller: Caller,
  request: GetNetworkAdequacyRequest,
): Promise<GetNetworkAdequacyResponse> {
  const problems = new RequestProblems();
  const asked = readAnalyticsPeriod(problems, request.analyticsPeriod);
  const given = request.dimension === DimensionMessage.DIMENSION_UNSPECIFIED ? undefined : request.dimension;
  const dimension = problems.check(
    'dimension',
    NetworkAdequacyQuery.shape.dimension,
    given === undefined ? undefined : (DIMENSION_OF[given] ?? given),
  );
  problems.throwIfAny();
  const { period, from, to } = analyticsPeriodWindow(asked, deps.clock());
  const [demand, graph] = await Promise.all([
    deps.adequacyDemand.read(caller, dimension!, from, to),
    deps.orgGraphs(caller.organizationId),
  ]);
  const serving = graph.servingOf(dimension!, to.toISOString().slice(0, 10));
  return {
    networkAdequacy: {
      period,
      dimension: dimension!,
      rows: demand.map((r) => ({
        value: r.value,
        providers: serving.get(r.value)?.providers ?? 0,
        acceptingNewClients: serving.get(r.value)?.acceptingNewClients ?? 0,
        resolutions: r.resolutions,
        zeroResultRate: r.resolutions === 0 ? 0 : rounded(r.zeroResults / r.resolutions, 4),
        medianDaysToFirstOption: r.medianDays === null ? undefined : rounded(r.medianDays, 2),
        p90DaysToFirstOption: r.p90Days === null ? undefined : rounded(r.p90Days, 2),
        topExclusionCodes: r.topExclusionCodes.map((c) => ({ code: c.code, count: c.count })),
      })),
    },
  };
}
