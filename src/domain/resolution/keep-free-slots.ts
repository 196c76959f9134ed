/** The few free slots of one provider that can rank: the first ones in a preferred day part and the first outside. */
import type { CalendarConnection, ProviderService } from '../provider.js';
import { scanSlots } from '../availability/slot-generation.js';
import type { Interval } from '../availability/busy-intervals.js';
import { dayPartOfMinute, type DayPart } from '../ranking/day-part.js';
import { sharedMinuteOfDayReader } from '../ranking/local-minute-of-day.js';
import type { RankingSlot } from '../ranking/rank-options.js';

/** Input of keepFreeSlots. */
export interface KeepFreeSlotsInput {
  schedule: CalendarConnection;
  service: ProviderService;
  window: { from: string; to: string };
  now: Date;
  busy: readonly Interval[];
  /** Free slots kept per bucket. */
  keep: number;
  /** The requested day parts; none means one bucket. */
  preferredParts: ReadonlySet<DayPart>;
  /** Day parts are judged in this timezone when given, else in the schedule's. */
  partZone: string | undefined;
}

/** The kept slots (preferred bucket first) and whether any free slot was met. */
export interface KeptFreeSlots {
  slots: RankingSlot[];
  free: number;
}

/**
 * keepFreeSlots keeps the first `keep` free slots in a preferred day part and the first `keep` outside: the
 * best-scoring slots of a provider are always among them (day-part points are flat, earliest points fall with time).
 * The scan stops once both are full, so `free` counts the free slots met until then (at least 1 when any exists).
 */
export function keepFreeSlots(input: KeepFreeSlotsInput): KeptFreeSlots {
  const { schedule, keep, preferredParts, partZone } = input;
  const zone = schedule.timezone;
  const inPart: RankingSlot[] = [];
  const outPart: RankingSlot[] = [];
  let free = 0;
  const wantOut = preferredParts.size > 0;
  scanSlots(
    {
      schedule,
      service: input.service,
      from: input.window.from,
      to: input.window.to,
      now: input.now,
      busy: input.busy,
    },
    (start, slotEnd, _date, minute, available) => {
      if (!available) return true;
      free++;
      const bucket = !wantOut || inPreferredBucket(start, minute, zone, partZone, preferredParts) ? inPart : outPart;
      if (bucket.length < keep) bucket.push({ start, end: slotEnd, timezone: zone });
      return inPart.length < keep || (wantOut && outPart.length < keep);
    },
  );
  return { slots: inPart.concat(outPart), free };
}

/**
 * Whether a slot goes to the preferred bucket: its day part, read in `partZone` when that is another zone (else its
 * wall-clock `minute` in the schedule's zone), is one of the preferred ones.
 */
export function inPreferredBucket(
  start: number,
  minute: number,
  zone: string,
  partZone: string | undefined,
  preferredParts: ReadonlySet<DayPart>,
): boolean {
  const m = partZone && partZone !== zone ? (sharedMinuteOfDayReader(start, partZone) ?? minute) : minute;
  const part = dayPartOfMinute(m);
  return part !== undefined && preferredParts.has(part);
}
