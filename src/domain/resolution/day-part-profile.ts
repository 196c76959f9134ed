/** Where a schedule's slots fall among the requested day parts, remembered with the slot count they belong to. */
import type { CalendarConnection, ProviderService } from '../provider.js';
import { scanSlots, type SlotCount } from '../availability/slot-generation.js';
import type { DayPart } from '../ranking/day-part.js';
import { sharedMinuteOfDayReader } from '../ranking/local-minute-of-day.js';
import { judgedDayPart } from '../ranking/ranking-context.js';
import { inPreferredBucket } from './keep-free-slots.js';

/** The day parts of every slot of a window from the notice cut-off on, free or busy. */
export interface DayPartProfile {
  /**
   * Earliest start of a slot whose judged day part (PREFERRED_DAY_PART's reading) is a requested one: Infinity when
   * no slot's is, -Infinity when the schedule's zone cannot be read (then nothing is claimed).
   */
  preferredFrom: number;
  /** Slots keepFreeSlots would put in the preferred bucket, and in the other one. */
  inBucket: number;
  outBucket: number;
}

/** The preferences and window a resolution asks dayPartProfile about (one object for all its providers). */
export interface DayPartQuestion {
  window: { from: string; to: string };
  now: Date;
  preferredParts: ReadonlySet<DayPart>;
  /** The preferences' timezone. */
  partZone: string | undefined;
  /** Names partZone and preferredParts (the same key for the same preferences). */
  key: string;
}

const NO_BUSY: readonly never[] = [];
const profiles = new WeakMap<SlotCount, Map<string, DayPartProfile>>();
// Profiles kept per slot count: one per day-part preference (and timezone) asked about; past this many, start over.
const PROFILES_PER_COUNT = 16;

/** The profile dayPartProfile would answer, when it is remembered already (no walk), else undefined. */
export function rememberedDayPartProfile(count: SlotCount, question: DayPartQuestion): DayPartProfile | undefined {
  return profiles.get(count)?.get(question.key);
}

/**
 * dayPartProfile answers for the slots `count` stands for (a schedule of that count's shape and `service`'s
 * rules): it walks them once per slot count (which schedules of the same shape, and cut-offs between the same two
 * slots, share) and preferences. Busy time is left out, so the profile holds for the free slots of any provider.
 */
export function dayPartProfile(
  count: SlotCount,
  schedule: CalendarConnection,
  service: ProviderService,
  question: DayPartQuestion,
): DayPartProfile {
  let byKey = profiles.get(count);
  if (byKey === undefined) profiles.set(count, (byKey = new Map()));
  const known = byKey.get(question.key);
  if (known !== undefined) return known;
  const { preferredParts, partZone, window, now } = question;
  const zone = schedule.timezone;
  const profile: DayPartProfile = { preferredFrom: Infinity, inBucket: 0, outBucket: 0 };
  // The judged reading falls back to the provider's timezone only when the slot's zone cannot be read, which a zone
  // that produced slots always can; should it not, the profile claims nothing about day-part points.
  const readable = sharedMinuteOfDayReader(now.getTime(), zone) !== undefined;
  if (!readable) profile.preferredFrom = -Infinity;
  scanSlots(
    { schedule, service, from: window.from, to: window.to, now, busy: NO_BUSY },
    (start, _end, _date, minute) => {
      if (inPreferredBucket(start, minute, zone, partZone, preferredParts)) profile.inBucket++;
      else profile.outBucket++;
      if (readable && start < profile.preferredFrom) {
        const part = judgedDayPart(start, zone, undefined, partZone);
        if (part !== undefined && preferredParts.has(part)) profile.preferredFrom = start;
      }
    },
  );
  if (byKey.size >= PROFILES_PER_COUNT) byKey.clear();
  byKey.set(question.key, profile);
  return profile;
}
