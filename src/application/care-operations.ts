import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CreateContinuityBody,
  CreateWaitlistEntryBody,
  ListContinuityQuery,
  ListManualReviewQuery,
  ListWaitlistQuery,
  ManualReviewPath,
  WaitlistEntryPath,
} from '../contract/schemas/care.js';
import { ServiceError } from '../errors/service-error.js';
import {
  findContinuityRecord,
  listContinuityRecords,
  upsertContinuityRecord,
} from '../persistence/continuity-repository.js';
import type { Queryable } from '../persistence/database.js';
import {
  findManualReviewEntry,
  listManualReviewEntries,
  setManualReviewStatus,
} from '../persistence/manual-review-repository.js';
import { findProviderRow } from '../persistence/provider-repository.js';
import { findResolutionOrganizationId } from '../persistence/resolution-repository.js';
import { findServiceRow } from '../persistence/service-repository.js';
import { newId } from '../persistence/new-id.js';
import { bumpGraphVersion } from '../persistence/organization-repository.js';
import {
  findWaitlistEntry,
  insertWaitlistEntry,
  listWaitlistEntries,
  type WaitlistDoc,
  type WaitlistEntryStatus,
} from '../persistence/waitlist-repository.js';
import { getInitialSnapshot } from 'xstate';
import { waitlistEntryActorKind } from '../../machines/machine-versions.js';
import { waitlistEntryMachine } from '../../machines/waitlist-entry-machine.js';
import { stepCause } from './step-cause.js';
import { ENTRY_ACTOR_TTL_MS } from './waitlist/follow-entry-actor.js';
import { releaseOfferHold } from './waitlist/release-offer-hold.js';
import { stepWaitlistEntry } from './waitlist/step-waitlist-entry.js';
import type { ResolutionDeps } from './resolution/resolution-deps.js';
import { REVIEW_SIGHTING_WINDOW_MS } from './resolution/review-hand-off.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { providerOfCaller } from './provider-of-caller.js';
import { recordAudit } from './record-audit.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** Reads a waitlist entry of the caller's organization: 404 when unknown, 403 when another organization's. */
async function waitlistEntryOfCaller(db: Queryable, caller: Caller, id: string, opts: { forUpdate?: boolean } = {}) {
  const found = await findWaitlistEntry(db, id, opts);
  if (!found) throw new ServiceError('WAITLIST_ENTRY_NOT_FOUND');
  if (found.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return found;
}

/** Checks that an id in a body names a record of the caller's organization (404 when unknown, 403 when foreign). */
function ensureOwned(
  organizationId: string | undefined,
  caller: Caller,
  notFound: 'SERVICE_NOT_FOUND' | 'RESOLUTION_NOT_FOUND' | 'PROVIDER_NOT_FOUND',
  field: string,
) {
  if (organizationId === undefined) throw new ServiceError(notFound, undefined, { field });
  if (organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN', undefined, { field });
}

/** The page size and keyset position of a list query. */
function pageOf(q: { limit?: number | undefined; cursor?: string | undefined }) {
  return { limit: q.limit ?? 50, after: decodeCursor(q.cursor) ?? '' };
}

/** CareService operations: continuity records, the waitlist and the manual-review queue (SPEC 4.7, CONTRACT part 7). */
export function createCareOperations(deps: ResolutionDeps): OperationTable {
  return {
    CreateContinuity: {
      audit: { ...AUDIT_ACTIONS.continuityCreate, kind: 'write-if-changed' },
      async handler(caller, input) {
        const body = parseInput(CreateContinuityBody, input.body);
        const now = deps.clock();
        const lastSeenAt = body.lastSeenAt === undefined ? null : new Date(body.lastSeenAt);
        return deps.db.transaction(async (tx) => {
          await providerOfCaller(tx, caller, body.providerId).catch((err: unknown) => {
            throw err instanceof ServiceError ? new ServiceError(err.code, err.message, { field: 'providerId' }) : err;
          });
          const key = { organizationId: caller.organizationId, clientRef: body.clientRef, providerId: body.providerId };
          const prev = await findContinuityRecord(tx, key, { forUpdate: true });
          const view = await upsertContinuityRecord(tx, {
            ...key,
            id: newId('cty', now.getTime()),
            platformId: caller.platformId,
            lastSeenAt,
            now,
          });
          if (prev && prev.lastSeenAt === view.lastSeenAt) return view;
          // Continuity changes the order a resolution gives; a new graph version keeps "same input, same graph version, same order" true.
          await bumpGraphVersion(tx, caller.organizationId);
          await recordAudit(tx, caller, now, {
            ...(prev ? AUDIT_ACTIONS.continuityUpdate : AUDIT_ACTIONS.continuityCreate),
            resourceId: view.id,
            before: prev ?? null,
            after: view,
          });
          return view;
        });
      },
    },
    ListContinuity: {
      audit: { ...AUDIT_ACTIONS.continuityList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListContinuityQuery, input.query);
        const { limit, after } = pageOf(q);
        const rows = await listContinuityRecords(
          deps.db,
          { organizationId: caller.organizationId, clientRef: q.clientRef },
          { after, limit: limit + 1 },
        );
        return page(rows, limit, (c) => c.id);
      },
    },
    CreateWaitlistEntry: {
      audit: { ...AUDIT_ACTIONS.waitlistEntryCreate, kind: 'write' },
      async handler(caller, input) {
        const body = parseInput(CreateWaitlistEntryBody, input.body);
        ensureOwned(
          (await findServiceRow(deps.db, body.serviceId))?.organization_id,
          caller,
          'SERVICE_NOT_FOUND',
          'serviceId',
        );
        if (body.resolutionId !== undefined) {
          ensureOwned(
            await findResolutionOrganizationId(deps.db, body.resolutionId),
            caller,
            'RESOLUTION_NOT_FOUND',
            'resolutionId',
          );
        }
        const now = deps.clock();
        const doc: WaitlistDoc = {
          serviceId: body.serviceId,
          customer: body.customer,
          constraints: body.constraints ?? null,
          preferences: body.preferences ?? null,
          resolutionId: body.resolutionId ?? null,
          cancelledAt: null,
          mode: caller.mode,
          offer: null,
          offersMade: 0,
          lapsedSlots: [],
          bookingId: null,
          bookedAt: null,
        };
        const id = newId('wl', now.getTime());
        const actorInput = {
          entryId: id,
          organizationId: caller.organizationId,
          serviceId: body.serviceId,
          mode: caller.mode,
        };
        // The entry's first state is its machine's; the row commits first, then its actor is created.
        const status = String(getInitialSnapshot(waitlistEntryMachine, { ...actorInput, at: now.toISOString() }).value);
        const view = await deps.db.transaction(async (tx) => {
          const view = await insertWaitlistEntry(tx, {
            id,
            platformId: caller.platformId,
            organizationId: caller.organizationId,
            status: status as WaitlistEntryStatus,
            doc,
            now,
          });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.waitlistEntryCreate,
            resourceId: view.id,
            after: view,
          });
          return view;
        });
        await deps.actors.create(
          waitlistEntryActorKind,
          id,
          { ...actorInput, at: now.toISOString() },
          { causedBy: stepCause(caller), expireAt: new Date(now.getTime() + ENTRY_ACTOR_TTL_MS) },
        );
        return view;
      },
    },
    ListWaitlistEntries: {
      audit: { ...AUDIT_ACTIONS.waitlistEntryList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListWaitlistQuery, input.query);
        const { limit, after } = pageOf(q);
        const rows = await listWaitlistEntries(
          deps.db,
          { organizationId: caller.organizationId, status: q.status },
          { after, limit: limit + 1 },
        );
        return page(rows, limit, (w) => w.id);
      },
    },
    CancelWaitlistEntry: {
      audit: { ...AUDIT_ACTIONS.waitlistEntryCancel, kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id } = parseInput(WaitlistEntryPath, input.params);
        await waitlistEntryOfCaller(deps.db, caller, id);
        const now = deps.clock();
        // The machine decides: a waiting or offered entry is cancelled; a cancelled or booked one answers as it is.
        const step = await stepWaitlistEntry(
          deps,
          id,
          { type: 'CANCEL', at: now.toISOString() },
          {
            caller,
            audit: AUDIT_ACTIONS.waitlistEntryCancel,
            check: (stored) => {
              if (stored.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
            },
          },
        );
        if (!step) throw new ServiceError('WAITLIST_ENTRY_NOT_FOUND');
        // An offer cancelled with its entry gives its slot back at once: the hold is released (and its freed time
        // queued for the next entry), rather than left to lapse.
        const offer = step.before.doc.offer;
        if (step.changed && step.before.entry.status === 'offered' && offer)
          await releaseOfferHold(deps, offer.holdId, caller);
        return step.entry;
      },
    },
    ListManualReview: {
      audit: { ...AUDIT_ACTIONS.manualReviewList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListManualReviewQuery, input.query);
        const { limit, after } = pageOf(q);
        const rows = await listManualReviewEntries(
          deps.db,
          { organizationId: caller.organizationId, status: q.status ?? 'open' },
          { after, limit: limit + 1 },
        );
        return page(rows, limit, (e) => e.providerId);
      },
    },
    ResolveManualReview: {
      audit: { ...AUDIT_ACTIONS.manualReviewResolve, kind: 'write-if-changed' },
      async handler(caller, input) {
        const { providerId } = parseInput(ManualReviewPath, input.params);
        ensureOwned(
          (await findProviderRow(deps.db, providerId))?.organization_id,
          caller,
          'PROVIDER_NOT_FOUND',
          'providerId',
        );
        const now = deps.clock();
        const { view, changed } = await deps.db.transaction(async (tx) => {
          const entryKey = { organizationId: caller.organizationId, providerId };
          const cur = await findManualReviewEntry(tx, entryKey, { forUpdate: true });
          if (!cur) throw new ServiceError('PROVIDER_NOT_FOUND', 'This provider has no manual-review entry.');
          if (cur.status === 'resolved') return { view: cur, changed: false };
          await setManualReviewStatus(tx, entryKey, { status: 'resolved', resolvedAt: now });
          const resolved = { ...cur, status: 'resolved' as const, resolvedAt: now.toISOString() };
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.manualReviewResolve,
            resourceId: providerId,
            before: cur,
            after: resolved,
          });
          return { view: resolved, changed: true };
        });
        // Resolutions hand the same unknown set off once a minute; after a resolve the next sighting must go through,
        // so that the entry reopens at once if the provider is unknown again (CONTRACT part 4). The resolve has
        // committed: a Redis failure here only delays that reopening by at most the window, it undoes nothing.
        if (changed)
          await deps.reviewQueue
            .noteResolved(caller.organizationId, now, REVIEW_SIGHTING_WINDOW_MS)
            .catch(() => undefined);
        return view;
      },
    },
  };
}
