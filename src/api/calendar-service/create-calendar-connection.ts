import type {
  CreateCalendarConnectionRequest,
  CreateCalendarConnectionResponse,
} from '../../gen/scheduling/v1/calendar_service.js';
import { CreateCalendarConnectionBody } from '../../contract/schemas/calendar-connection.js';
import type { Weekday } from '../../domain/provider.js';
import type { Database } from '../../persistence/database.js';
import {
  fullWeek,
  insertCalendarConnectionRow,
  toCalendarConnectionView,
  type CalendarConnectionDoc,
  type StoredDay,
} from '../../persistence/calendar-connection-repository.js';
import { newId } from '../../persistence/new-id.js';
import { bumpGraphVersion } from '../../persistence/organization-repository.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';
import { queueProviderTime } from '../../application/waitlist/queue-provider-time.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, given } from '../request-problems.js';
import { calendarConnectionMessage } from '../messages/calendar-connection-message.js';
import {
  addScheduleProblems,
  checkFeed,
  daysInput,
  externalCalendarInput,
  overridesInput,
  type FeedCheckDeps,
} from './schedule-input.js';

/** What CreateCalendarConnection uses. */
export interface CreateCalendarConnectionDeps extends FeedCheckDeps {
  db: Database;
  clock: () => Date;
}

const RULES = CreateCalendarConnectionBody.shape;

/**
 * CreateCalendarConnection: a weekly schedule (all seven weekdays answered, a day left out closed) with date overrides
 * and an optional iCalendar feed for a provider of the caller's organization. Every problem of the fields and of the
 * schedule (overlapping windows, a repeated override date) is answered in one 400; a feed URL the guarded feed client
 * would not fetch is 400 on `externalCalendar.url`; then the provider (404, 403). Bumps the provider graph version,
 * queues the provider's time for the waitlist and is audited as `calendar_connection.create`, in one transaction.
 */
export async function createCalendarConnection(
  deps: CreateCalendarConnectionDeps,
  caller: Caller,
  request: CreateCalendarConnectionRequest,
): Promise<CreateCalendarConnectionResponse> {
  const problems = new RequestProblems();
  const providerId = problems.check('providerId', RULES.providerId, given(request.providerId));
  const title = problems.check('title', RULES.title, request.title);
  const timezone = problems.check('timezone', RULES.timezone, given(request.timezone));
  const givenDays = daysInput(request.days);
  const days = problems.check('days', RULES.days, givenDays);
  const givenOverrides = overridesInput(request.overrides);
  const overrides = problems.check('overrides', RULES.overrides, givenOverrides);
  const externalCalendar = problems.check(
    'externalCalendar',
    RULES.externalCalendar,
    externalCalendarInput(request.externalCalendar),
  );
  addScheduleProblems(problems, { timezone: given(request.timezone), days: givenDays, overrides: givenOverrides });
  problems.throwIfAny();
  // Outside the transaction: resolving the feed's host may take a while and needs no lock.
  await checkFeed(deps, externalCalendar);
  const doc: CalendarConnectionDoc = {
    title: title ?? null,
    timezone: timezone!,
    days: fullWeek(days as Partial<Record<Weekday, StoredDay>>),
    overrides: overrides ?? [],
    externalCalendar: externalCalendar ?? null,
  };
  const now = deps.clock();
  const view = await deps.db.transaction(async (tx) => {
    const provider = await providerOfCaller(tx, caller, providerId!);
    const row = await insertCalendarConnectionRow(tx, {
      id: newId('cal', now.getTime()),
      platformId: caller.platformId,
      organizationId: caller.organizationId,
      providerId: provider.id,
      doc,
      now,
    });
    const created = toCalendarConnectionView(row);
    await bumpGraphVersion(tx, caller.organizationId);
    await queueProviderTime(tx, { ...caller, providerId: provider.id, now });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.calendarConnectionCreate,
      resourceId: created.id,
      after: created,
    });
    return created;
  });
  return { calendarConnection: calendarConnectionMessage(view) };
}
