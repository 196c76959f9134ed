import type { WaitlistEntryContext, WaitlistEntryEvent } from '../../../machines/waitlist-entry-machine.js';
import type { AuditAction } from '../audit/audit-actions.js';
import type { StepCause } from '../../persistence/actor-store.js';
import { storeEvent, type OutboxEvent } from '../../persistence/event-outbox.js';
import {
  findWaitlistEntry,
  updateWaitlistEntry,
  type StoredWaitlistEntry,
  type WaitlistEntryRecord,
  type WaitlistEntryStatus,
} from '../../persistence/waitlist-repository.js';
import type { Caller } from '../caller.js';
import { recordAudit } from '../record-audit.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { stepCause } from '../step-cause.js';
import { followEntryActor } from './follow-entry-actor.js';
import { waitlistCaller } from './waitlist-caller.js';
import { waitlistEntryStep } from './waitlist-entry-state.js';

/** What a waitlist entry step did. */
export interface WaitlistEntryStepResult {
  before: StoredWaitlistEntry;
  status: WaitlistEntryStatus;
  changed: boolean;
  entry: WaitlistEntryRecord;
  context: WaitlistEntryContext;
}

/** What stepWaitlistEntry uses: the database, the actor store and the clock (the entry actor's expiry). */
export type StepWaitlistEntryDeps = Pick<ResolutionDeps, 'db' | 'actors' | 'clock'>;

/**
 * One step of a waitlist entry's lifecycle (LAPSE, BOOK, CANCEL; an OFFER is recorded with its hold by offerToEntry):
 * in one transaction the row is locked, the machine decides from it, and a change is written with its event (from
 * `eventOf`) and its audit entry; then the entry's actor follows. An event the machine ignores writes nothing.
 * Undefined when the entry does not exist. `caller` is the API caller, or the system acting for the entry.
 */
export async function stepWaitlistEntry(
  deps: StepWaitlistEntryDeps,
  entryId: string,
  event: WaitlistEntryEvent,
  opts: {
    caller?: Caller;
    audit: AuditAction;
    eventOf?: (before: StoredWaitlistEntry, after: WaitlistEntryContext, caller: Caller) => OutboxEvent | undefined;
    /** Checks the row before anything is written (tenancy); throws to refuse. */
    check?: (stored: StoredWaitlistEntry) => void;
  },
): Promise<WaitlistEntryStepResult | undefined> {
  const now = new Date(event.at);
  const result = await deps.db.transaction(async (tx) => {
    const locked = await findWaitlistEntry(tx, entryId, { forUpdate: true });
    if (!locked) return undefined;
    opts.check?.(locked);
    const caller = opts.caller ?? waitlistCaller(locked, now);
    const step = waitlistEntryStep(locked, event);
    if (!step.changed)
      return {
        before: locked,
        status: step.status,
        changed: false,
        entry: locked.entry,
        context: step.context,
        caller,
      };
    const entry = await updateWaitlistEntry(tx, entryId, { status: step.status, doc: step.doc, now });
    const outbox = opts.eventOf?.(locked, step.context, caller);
    if (outbox) await storeEvent(tx, outbox);
    await recordAudit(tx, caller, now, { ...opts.audit, resourceId: entryId, before: locked.entry, after: entry });
    return { before: locked, status: step.status, changed: true, entry, context: step.context, caller };
  });
  if (!result) return undefined;
  const { caller, ...answer } = result;
  const causedBy: StepCause = stepCause(caller);
  if (result.changed) await followEntryActor(deps, result.before, event, causedBy);
  return answer;
}
