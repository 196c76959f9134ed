import type { TimerRef } from '../persistence/durable-timers.js';
import { ActorNotFoundError } from '../persistence/actor-store-errors.js';
import type { ResolutionDeps } from '../application/resolution/resolution-deps.js';
import { expireHold } from '../application/booking/hold-flows.js';
import { completeBooking } from '../application/booking/complete-booking.js';
import { lapseOffer } from '../application/waitlist/lapse-offer.js';
import { expireResolution } from '../application/resolution/expire-resolution.js';

/** Extra timer handlers by `kind|name` (holds and bookings register theirs). */
export type TimerHandlers = Record<string, (id: string) => Promise<void>>;

/**
 * What the timer handler uses: the database, the actor store and the clock (every handler's steps), and tracing when
 * on.
 */
export type ActorTimerHandlerDeps = Pick<ResolutionDeps, 'db' | 'actors' | 'clock' | 'tracing'>;

/**
 * Turns a fired durable timer into an ordinary event for its actor. Handlers are idempotent: machine guards
 * re-check the time, so a late or repeated timer changes nothing; a timer of a vanished actor is dropped. With
 * tracing, each fired timer is a span, the root of a trace of its own.
 */
export function createActorTimerHandler(deps: ActorTimerHandlerDeps, extra: TimerHandlers = {}) {
  const handlers: TimerHandlers = {
    'resolution|expire': (id) => expireResolution(deps, id),
    'hold|expire': (id) => expireHold(deps, id),
    'booking|complete': (id) => completeBooking(deps, id),
    'waitlist_entry|lapse': (id) => lapseOffer(deps, id),
    ...extra,
  };
  const fire = async (handler: (id: string) => Promise<void>, timer: TimerRef): Promise<void> => {
    try {
      await handler(timer.id);
    } catch (err) {
      if (err instanceof ActorNotFoundError) return;
      throw err;
    }
  };
  const tracing = deps.tracing;
  return async (timer: TimerRef): Promise<void> => {
    const handler = handlers[`${timer.kind}|${timer.name}`];
    if (!handler) return;
    if (!tracing) return fire(handler, timer);
    // Each fired timer is a trace of its own: the event it sends, the rows and actor it changes.
    return tracing.inSpan(
      `timer ${timer.kind} ${timer.name}`,
      {
        root: true,
        attributes: { 'timer.kind': timer.kind, 'timer.name': timer.name, 'timer.actor_id': timer.id },
      },
      () => fire(handler, timer),
    );
  };
}
