/**
 * Admission units of the RPCs that cost more than a plain call (`Service/Rpc`). A unit is about one plain call's work
 * on the event loop (an authenticated read or write: 1-3 ms of CPU here); creating a resolution screens, checks and
 * ranks a whole organization's graph (~7 ms at 10,000 providers: README "Benchmark"), so it takes four, and a limit
 * of 16 units lets four resolutions or sixteen plain calls run at once.
 */
const COSTS: Readonly<Record<string, number>> = {
  'ResolutionService/CreateResolution': 4,
  'ResolutionService/CreateResolutionV1': 4,
};

/** The admission units a call of `service`/`rpc` takes (1 unless listed above), by either door. */
export function admissionCost(service: string, rpc: string): number {
  return COSTS[`${service}/${rpc}`] ?? 1;
}
