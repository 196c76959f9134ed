import type {
  UpdateCalendarConnectionRequest,
  UpdateCalendarConnectionResponse,
} from '../../gen/scheduling/v1/calendar_service.js';
import { CalendarConnectionPath, UpdateCalendarConnectionBody } from '../../contract/schemas/calendar-connection.js';
import type { Weekday } from '../../domain/provider.js';
import type { Database } from '../../persistence/database.js';
import {
  calendarConnectionDoc,
  fullWeek,
  toCalendarConnectionView,
  updateCalendarConnectionRow,
  type CalendarConnectionDoc,
  type StoredDay,
} from '../../persistence/calendar-connection-repository.js';
import { bumpGraphVersion } from '../../persistence/organization-repository.js';
import type { Caller } from '../../application/caller.js';
import { queueProviderTime } from '../../application/waitlist/queue-provider-time.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, pathId } from '../request-problems.js';
import { readUpdateMask } from '../update-mask.js';
import { calendarConnectionMessage } from '../messages/calendar-connection-message.js';
import { connectionOfCaller } from './connection-of-caller.js';
import {
  addScheduleProblems,
  checkFeed,
  daysInput,
  externalCalendarInput,
  overridesInput,
  type FeedCheckDeps,
} from './schedule-input.js';

/** What UpdateCalendarConnection uses. */
export interface UpdateCalendarConnectionDeps extends FeedCheckDeps {
  db: Database;
  clock: () => Date;
}

/** The fields an update may name in its mask (the provider cannot change). */
const UPDATABLE = ['title', 'timezone', 'days', 'overrides', 'externalCalendar'] as const;

const RULES = UpdateCalendarConnectionBody.shape;

/**
 * UpdateCalendarConnection: changes the fields the `update_mask` names (without one: the fields set) of a connection
 * of the caller's organization — a weekday given replaces that weekday, the others keep theirs; `title`, `overrides`
 * and `externalCalendar` named and unset are cleared; `timezone` and `days` cannot be. The connection is found first
 * (404, 403), then every problem of the fields and of the whole schedule after the change is answered in one 400, a
 * feed URL the guarded feed client would not fetch on `externalCalendar.url`. An update that changes nothing writes
 * nothing; otherwise it bumps the provider graph version, queues the provider's time for the waitlist and is audited
 * as `calendar_connection.update`, in one transaction.
 */
export async function updateCalendarConnection(
  deps: UpdateCalendarConnectionDeps,
  caller: Caller,
  request: UpdateCalendarConnectionRequest,
): Promise<UpdateCalendarConnectionResponse> {
  const named = readUpdateMask(request.updateMask, UPDATABLE, {
    title: request.title !== undefined,
    timezone: request.timezone !== undefined,
    days: request.days !== undefined,
    overrides: (request.overrides?.length ?? 0) > 0,
    externalCalendar: request.externalCalendar !== undefined,
  });
  const id = pathId(CalendarConnectionPath.shape.id, request.id);
  // Tenancy and existence come before the fields, so a foreign id is 403 whatever the request says.
  await connectionOfCaller(deps.db, caller, id);

  const problems = new RequestProblems();
  const change: Partial<Omit<CalendarConnectionDoc, 'days'>> & { days?: Partial<Record<Weekday, StoredDay>> } = {};
  if (named.has('title'))
    change.title = request.title === undefined ? null : problems.check('title', RULES.title, request.title);
  if (named.has('timezone')) {
    if (request.timezone === undefined) problems.add('timezone', 'Invalid input: expected string, received null');
    else change.timezone = problems.check('timezone', RULES.timezone, request.timezone);
  }
  const givenDays = named.has('days') ? daysInput(request.days) : undefined;
  if (named.has('days')) {
    if (givenDays === undefined) problems.add('days', 'Invalid input: expected object, received null');
    else change.days = problems.check('days', RULES.days, givenDays) as Partial<Record<Weekday, StoredDay>>;
  }
  const givenOverrides = overridesInput(request.overrides);
  if (named.has('overrides')) change.overrides = problems.check('overrides', RULES.overrides, givenOverrides) ?? [];
  if (named.has('externalCalendar'))
    change.externalCalendar =
      request.externalCalendar === undefined
        ? null
        : problems.check('externalCalendar', RULES.externalCalendar, externalCalendarInput(request.externalCalendar));
  // A feed URL is checked outside the transaction (DNS needs no lock), once the fields are known valid.
  if (problems.fields.length === 0) await checkFeed(deps, change.externalCalendar);

  const now = deps.clock();
  const after = await deps.db.transaction(async (tx) => {
    const cur = await connectionOfCaller(tx, caller, id, { forUpdate: true });
    // The whole schedule after the change is validated, not just the fields sent.
    addScheduleProblems(problems, {
      timezone: named.has('timezone') ? (request.timezone ?? cur.timezone) : cur.timezone,
      days: givenDays === undefined ? cur.days : { ...cur.days, ...givenDays },
      overrides: named.has('overrides') ? givenOverrides : cur.overrides,
    });
    problems.throwIfAny();
    const next: CalendarConnectionDoc = {
      title: named.has('title') ? change.title! : cur.title,
      timezone: change.timezone ?? cur.timezone,
      days: change.days === undefined ? cur.days : fullWeek({ ...cur.days, ...change.days }),
      overrides: change.overrides ?? cur.overrides,
      externalCalendar: named.has('externalCalendar') ? change.externalCalendar! : cur.externalCalendar,
    };
    if (JSON.stringify(next) === JSON.stringify(calendarConnectionDoc(cur))) return cur;
    const view = toCalendarConnectionView(await updateCalendarConnectionRow(tx, id, next, now));
    await bumpGraphVersion(tx, caller.organizationId);
    // A schedule widened (or busy overrides removed) may free time for the waitlist.
    await queueProviderTime(tx, { ...caller, providerId: view.providerId, now });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.calendarConnectionUpdate,
      resourceId: id,
      before: cur,
      after: view,
    });
    return view;
  });
  return { calendarConnection: calendarConnectionMessage(after) };
}
