import type { GetActorRequest, GetActorResponse } from '../../gen/scheduling/v1/inspector_service.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { readActorView, type ActorViewDeps } from '../../application/inspector/actor-view.js';
import { actorViewMessage } from '../messages/actor-view-message.js';
import { actorOfCaller } from './actor-of-caller.js';
import { KINDS } from './inspected-machines.js';

/** What GetActor uses. */
export interface GetActorDeps extends ActorViewDeps {
  db: Database;
}

/**
 * GetActor: the live view of one actor of the caller's organization — state, snapshot, revision, history with causes,
 * durable timers, transitions taken; 404 once it has expired from the store.
 */
export async function getActor(
  deps: GetActorDeps,
  caller: Caller,
  request: GetActorRequest,
): Promise<GetActorResponse> {
  const { kind, id, gone } = await actorOfCaller(deps.db, caller, request);
  const view = await readActorView(deps, KINDS[kind], id);
  if (!view) throw gone();
  return { actorView: actorViewMessage(view) };
}
