import { setTimeout as pause } from 'node:timers/promises';
import type { AnyStateMachine } from 'xstate';
import type { ActorKind } from '../../persistence/actor-store.js';
import { readActorView, type ActorViewDeps } from './actor-view.js';

/** The view readActorView answers. */
export type ActorViewResult = NonNullable<Awaited<ReturnType<typeof readActorView>>>;

/** Follows actors live for the inspector, and counts how many it follows right now. */
export interface ActorWatcher {
  /**
   * Sends the actor's view at once, then again each time its revision changes, until `signal` aborts. Polls the
   * revision (one HGET) every `pollMs`; throws what `gone()` makes when the actor disappears from the store.
   */
  follow(
    kind: ActorKind<AnyStateMachine>,
    id: string,
    send: (view: ActorViewResult) => Promise<void>,
    signal: AbortSignal,
    gone: () => Error,
  ): Promise<void>;
  /** Actors being followed in this process now (every follow that has not returned). */
  readonly active: number;
}

/**
 * Creates the actor watcher. Polling rather than Redis pub/sub: a follow costs one HGET per 250 ms and no change to
 * the actor store's write path, works the same whichever process wrote the step, and needs no subscriber connection;
 * the few developers who keep an inspector open do not make it worth a publish on every committed step.
 */
export function createActorWatcher(deps: ActorViewDeps & { pollMs?: number }): ActorWatcher {
  const pollMs = deps.pollMs ?? 250;
  let active = 0;
  return {
    get active() {
      return active;
    },
    async follow(kind, id, send, signal, gone) {
      active++;
      try {
        let sent: number | undefined;
        while (!signal.aborted) {
          const revision = await deps.actors.revision(kind, id);
          if (revision === undefined) throw gone();
          if (revision !== sent) {
            const view = await readActorView(deps, kind, id);
            if (!view) throw gone();
            sent = view.revision;
            await send(view);
          }
          await pause(pollMs, undefined, { signal }).catch(() => undefined);
        }
      } finally {
        active--;
      }
    },
  };
}
