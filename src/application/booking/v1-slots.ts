import { addDays } from '../../domain/availability/local-date.js';
import { slotsForLocalDate } from '../../domain/availability/slot-generation.js';
import { encodeSlotId } from '../../domain/availability/slot-id.js';
import { providerBusy } from '../../persistence/slot-claims.js';
import type { Caller } from '../caller.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { licenseCovers, loadBookableService } from './bookable-service.js';

/** `9:00 AM` for the wall-clock time `09:00`. */
export function slotLabel(time: string): string {
  const [h = 0, m = 0] = time.split(':').map(Number);
  return `${h % 12 === 0 ? 12 : h % 12}:${String(m).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`;
}

/**
 * GET /api/v1/slots: the slots of one local date in the provider's schedule timezone, stepped by the service's
 * slot interval; a slot overlapping an active claim (buffers included) is `available: false`. Past slots, slots
 * inside the minimum notice and slots after the provider's active licences end are not listed.
 */
export async function listSlotsV1(
  deps: Pick<ResolutionDeps, 'db' | 'clock'>,
  caller: Caller,
  q: { providerId: string; eventTypeId: string; date: string },
) {
  const bookable = await loadBookableService(deps.db, caller, q.providerId, q.eventTypeId, {
    provider: 'providerId',
    service: 'eventTypeId',
  });
  if (!bookable.schedule) return { slots: [] };
  const now = deps.clock();
  // A local date lies within one day either side of the same date read as UTC, for every offset.
  const from = new Date(`${addDays(q.date, -1)}T00:00:00Z`);
  const to = new Date(`${addDays(q.date, 2)}T00:00:00Z`);
  const busy = await providerBusy(deps.db, bookable.providerId, from, to, now);
  const slots = slotsForLocalDate({
    schedule: bookable.schedule,
    service: bookable.service,
    date: q.date,
    now,
    busy,
  })
    // A date after the provider's active licences end has no slot (CONTRACT part 8).
    .filter((s) => licenseCovers(bookable, s))
    .map((s) => ({
      id: encodeSlotId({ providerId: bookable.providerId, serviceId: bookable.service.id, start: s.start }),
      date: s.localDate,
      time: s.localTime,
      label: slotLabel(s.localTime),
      available: s.available,
    }));
  return { slots };
}
