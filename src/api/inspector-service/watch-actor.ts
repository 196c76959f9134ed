import type { WatchActorRequest, WatchActorResponse } from '../../gen/scheduling/v1/inspector_service.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import type { ActorWatcher } from '../../application/inspector/actor-watcher.js';
import { actorViewMessage } from '../messages/actor-view-message.js';
import { actorOfCaller } from './actor-of-caller.js';
import { KINDS } from './inspected-machines.js';

/** What WatchActor uses. */
export interface WatchActorDeps {
  db: Database;
  /** The process's actor watcher, which counts the follows. */
  watcher: ActorWatcher;
}

/**
 * WatchActor (server stream): the view of GetActor at once, then again each time the actor changes, until the caller
 * cancels; refusals (400, 403, 404) come before the first message, and the actor's expiry while followed ends the
 * stream with its 404.
 */
export async function watchActor(
  deps: WatchActorDeps,
  caller: Caller,
  request: WatchActorRequest,
  send: (message: WatchActorResponse) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const { kind, id, gone } = await actorOfCaller(deps.db, caller, request);
  await deps.watcher.follow(KINDS[kind], id, (view) => send({ actorView: actorViewMessage(view) }), signal, gone);
}
