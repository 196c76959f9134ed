import type { ListSlotsRequest, ListSlotsResponse } from '../../gen/scheduling/v1/booking_service.js';
import { ListSlotsV1Query } from '../../contract/schemas/booking.js';
import type { Caller } from '../../application/caller.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { listSlotsV1 as slotsOfDate } from '../../application/booking/v1-slots.js';
import { given, RequestProblems } from '../request-problems.js';

/** What ListSlots uses. */
export type ListSlotsDeps = Pick<ResolutionDeps, 'db' | 'clock'>;

/**
 * ListSlots (GET /api/v1/slots): the slots of one local date in the provider's schedule timezone; taken ones are
 * `available: false` (v1-slots.ts).
 */
export async function listSlots(
  deps: ListSlotsDeps,
  caller: Caller,
  request: ListSlotsRequest,
): Promise<ListSlotsResponse> {
  const problems = new RequestProblems();
  const shape = ListSlotsV1Query.shape;
  const providerId = problems.check('providerId', shape.providerId, given(request.providerId));
  const eventTypeId = problems.check('eventTypeId', shape.eventTypeId, given(request.eventTypeId));
  const date = problems.check('date', shape.date, given(request.date));
  problems.throwIfAny();
  const page = await slotsOfDate(deps, caller, { providerId: providerId!, eventTypeId: eventTypeId!, date: date! });
  return {
    slots: page.slots.map((s) => ({ id: s.id, date: s.date, time: s.time, label: s.label, available: s.available })),
  };
}
