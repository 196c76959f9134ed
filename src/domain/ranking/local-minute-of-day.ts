/** Reads the local wall-clock minute of day of an instant in an IANA timezone or a fixed UTC offset. */

const MINUTE_MS = 60_000;
// Every modern offset change happens on a quarter hour of UTC, so one lookup per 15-minute bucket is exact.
const BUCKET_MS = 15 * MINUTE_MS;
const MINUTES_PER_DAY = 1440;

/** Minutes east of UTC for `Z`, `UTC`, `+HH:MM` or `-HH:MM`; undefined for anything else (IANA names included). */
export function parseFixedOffset(timeZone: string): number | undefined {
  if (timeZone === 'Z' || timeZone === 'UTC') return 0;
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(timeZone);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3]);
  if (hours > 23 || minutes > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** A function giving the local minute of day (0..1439), or undefined when the timezone is not valid. */
export type MinuteOfDayReader = (epochMs: number, timeZone: string) => number | undefined;

/**
 * createMinuteOfDayReader returns a reader with its own caches (per timezone: its kind, one formatter, one lookup per
 * 15-minute bucket), so ranking thousands of slots costs few Intl calls. The caches are bounded: past `maxZones`
 * zones or `maxBucketsPerZone` buckets in one zone, that cache starts over.
 */
export function createMinuteOfDayReader(
  limits: { maxZones?: number; maxBucketsPerZone?: number } = {},
): MinuteOfDayReader {
  const maxZones = limits.maxZones ?? 1000;
  const maxBuckets = limits.maxBucketsPerZone ?? 100_000;
  // One shape for every zone keeps the hot path monomorphic; `formatter: null` with `fixed: undefined` marks an invalid name.
  interface Zone {
    fixed: number | undefined;
    formatter: Intl.DateTimeFormat | null;
    buckets: Map<number, number>;
  }
  const zones = new Map<string, Zone>();

  const zoneFor = (timeZone: string): Zone => {
    let z = zones.get(timeZone);
    if (z === undefined) {
      const fixed = parseFixedOffset(timeZone);
      let formatter: Intl.DateTimeFormat | null = null;
      if (fixed === undefined) {
        try {
          formatter = new Intl.DateTimeFormat('en-US', {
            timeZone,
            hourCycle: 'h23',
            hour: '2-digit',
            minute: '2-digit',
          });
        } catch {
          formatter = null;
        }
      }
      z = { fixed, formatter, buckets: new Map() };
      if (zones.size >= maxZones) zones.clear();
      zones.set(timeZone, z);
    }
    return z;
  };

  return (epochMs, timeZone) => {
    if (!Number.isFinite(epochMs)) return undefined;
    const z = zoneFor(timeZone);
    if (z.fixed !== undefined) return mod(Math.floor(epochMs / MINUTE_MS) + z.fixed, MINUTES_PER_DAY);
    if (z.formatter === null) return undefined;
    // The bucket index stays a small integer, which Map hashes much faster than an epoch in milliseconds.
    const bucket = Math.floor(epochMs / BUCKET_MS);
    const bucketStart = bucket * BUCKET_MS;
    let atBucketStart = z.buckets.get(bucket);
    if (atBucketStart === undefined) {
      let hour = 0;
      let minute = 0;
      for (const part of z.formatter.formatToParts(bucketStart)) {
        if (part.type === 'hour') hour = Number(part.value);
        else if (part.type === 'minute') minute = Number(part.value);
      }
      atBucketStart = hour * 60 + minute;
      if (z.buckets.size >= maxBuckets) z.buckets.clear();
      z.buckets.set(bucket, atBucketStart);
    }
    return (atBucketStart + Math.floor((epochMs - bucketStart) / MINUTE_MS)) % MINUTES_PER_DAY;
  };
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

/** One reader shared by every resolution of the process: offsets do not change, so its caches stay valid. */
export const sharedMinuteOfDayReader: MinuteOfDayReader = createMinuteOfDayReader();
