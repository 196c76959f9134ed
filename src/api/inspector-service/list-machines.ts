import type { ListMachinesRequest, ListMachinesResponse } from '../../gen/scheduling/v1/inspector_service.js';
import type { Caller } from '../../application/caller.js';
import { CATALOGUE } from './inspected-machines.js';

/** What ListMachines uses: nothing but the machines' definitions. */
export type ListMachinesDeps = Record<string, never>;

/** ListMachines: the machine catalogue (any key; the same for every organization). */
export async function listMachines(
  _deps: ListMachinesDeps,
  _caller: Caller,
  _request: ListMachinesRequest,
): Promise<ListMachinesResponse> {
  return { machineCatalogue: { machines: CATALOGUE.map((c) => c.machine) } };
}
