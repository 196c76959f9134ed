/** The dates openapi.json's examples use, all relative to the day the document is served (UTC), none in the past. */
export interface ExampleDays {
  /** The served day: instants already recorded (`createdAt`, `verifiedAt`…). */
  today: string;
  /** The first Monday at least a week ahead (7 to 13 days): slots, bookings, the start of a date range. */
  slotDay: string;
  /** A week after `slotDay`: the end of the example date range (half-open, 7 days). */
  rangeEnd: string;
  /** A year after the served day: licence expiries. */
  nextYear: string;
}

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of an instant, in UTC. */
function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The example dates of a document served at `now`. */
export function exampleDaysOf(now: Date): ExampleDays {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const weekAhead = today + 7 * DAY_MS;
  // getUTCDay: 0 Sunday … 1 Monday; days until the next Monday from a week ahead (0 when it is one).
  const slotDay = weekAhead + ((8 - new Date(weekAhead).getUTCDay()) % 7) * DAY_MS;
  const nextYear = new Date(today);
  nextYear.setUTCFullYear(nextYear.getUTCFullYear() + 1);
  return {
    today: utcDate(today),
    slotDay: utcDate(slotDay),
    rangeEnd: utcDate(slotDay + 7 * DAY_MS),
    nextYear: utcDate(nextYear.getTime()),
  };
}
