import { EVENT_RETENTION_MS } from '../../domain/event-retention.js';

/** The oldest instant an event may have to be answered at `now`: older ones are gone (or about to be swept). */
export function retainedSince(now: Date): Date {
  return new Date(now.getTime() - EVENT_RETENTION_MS);
}
