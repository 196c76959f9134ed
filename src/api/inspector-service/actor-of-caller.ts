import { ServiceError } from '../../errors/service-error.js';
import type { MachineName } from '../../gen/scheduling/v1/resources.js';
import { ActorPath } from '../../contract/schemas/inspector.js';
import type { Database } from '../../persistence/database.js';
import { actorOwner } from '../../persistence/actor-owner.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems, given } from '../request-problems.js';
import { readMachineName, type InspectedMachine } from './inspected-machines.js';

const NOT_FOUND = {
  resolution: 'RESOLUTION_NOT_FOUND',
  hold: 'HOLD_NOT_FOUND',
  booking: 'BOOKING_NOT_FOUND',
  waitlist_entry: 'WAITLIST_ENTRY_NOT_FOUND',
} as const;

/**
 * The kind and id of an actor a request names that the caller may see (`kind` and `id` checked together, then 404 when
 * no row owns it, 403 when another organization's): tenancy comes from the PostgreSQL row that owns it, since actors
 * of every kind live under one key space. `gone` is the 404 of an actor the store no longer holds.
 */
export async function actorOfCaller(
  db: Database,
  caller: Caller,
  request: { machineName?: MachineName | undefined; id?: string | undefined },
): Promise<{ kind: InspectedMachine; id: string; gone: () => ServiceError }> {
  const problems = new RequestProblems();
  const kind = readMachineName(problems, 'kind', request.machineName);
  const id = problems.check('id', ActorPath.shape.id, given(request.id));
  problems.throwIfAny();
  const owner = await actorOwner(db, kind!, id!);
  if (owner === undefined) throw new ServiceError(NOT_FOUND[kind!]);
  if (owner !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', `This ${kind} belongs to another organization.`);
  return {
    kind: kind!,
    id: id!,
    gone: () =>
      new ServiceError(NOT_FOUND[kind!], `The ${kind} ${id} has no actor in the store (expired or never mirrored).`),
  };
}
