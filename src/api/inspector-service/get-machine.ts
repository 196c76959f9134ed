import type { GetMachineRequest, GetMachineResponse } from '../../gen/scheduling/v1/inspector_service.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { CATALOGUE, readMachineName } from './inspected-machines.js';

/** What GetMachine uses: nothing but the machines' definitions. */
export type GetMachineDeps = Record<string, never>;

/** GetMachine: one machine of the catalogue by name (REST `machine`). */
export async function getMachine(
  _deps: GetMachineDeps,
  _caller: Caller,
  request: GetMachineRequest,
): Promise<GetMachineResponse> {
  const problems = new RequestProblems();
  const name = readMachineName(problems, 'machine', request.machineName);
  problems.throwIfAny();
  return { machine: CATALOGUE.find((c) => c.name === name)!.machine };
}
