import { bumpGraphVersion } from '../persistence/organization-repository.js';
import { queueProviderTime } from './waitlist/queue-provider-time.js';
import { storeEvent } from '../persistence/event-outbox.js';
import { outboxEvent, professionalEventData } from './event-data.js';
import { newId } from '../persistence/new-id.js';
import type { Queryable } from '../persistence/database.js';
import {
  insertProviderRow,
  toProviderView,
  updateProviderRow,
  type ProviderView,
} from '../persistence/provider-repository.js';
import { providerStateChanged, type ProviderState } from './provider-changes.js';

/** Where a provider write happens: tenant, mode of the key that caused it, and time. */
export interface WriteContext {
  platformId: string;
  organizationId: string;
  mode: 'live' | 'test';
  now: Date;
  /**
   * When set, graph version changes are counted here and the caller applies them in one update before its
   * transaction ends (an import of 500 rows rewrites the organization's row once, not 500 times).
   */
  deferredGraphChanges?: { count: number };
}

/** Counts one change of the provider graph: deferred when the context collects them, else applied now. */
async function graphChanged(tx: Queryable, ctx: WriteContext): Promise<void> {
  if (ctx.deferredGraphChanges) ctx.deferredGraphChanges.count++;
  else await bumpGraphVersion(tx, ctx.organizationId);
}

/**
 * Inserts a provider with its side effects in the caller's transaction: graph version +1 and
 * `professional.created` in the outbox. Returns undefined when the externalId already exists.
 */
export async function createProviderRecord(
  tx: Queryable,
  ctx: WriteContext,
  state: ProviderState,
): Promise<ProviderView | undefined> {
  const row = await insertProviderRow(tx, {
    id: newId('prv', ctx.now.getTime()),
    platformId: ctx.platformId,
    organizationId: ctx.organizationId,
    externalId: state.externalId,
    status: state.status,
    searchable: state.searchable,
    doc: state.doc,
    now: ctx.now,
  });
  if (!row) return undefined;
  const view = toProviderView(row);
  await graphChanged(tx, ctx);
  await storeEvent(
    tx,
    outboxEvent('professional.created', professionalEventData(view), {
      platformId: ctx.platformId,
      organizationId: ctx.organizationId,
      mode: ctx.mode,
      createdAt: ctx.now,
    }),
  );
  return view;
}

/**
 * Writes a provider's new state when it differs: profileVersion +1, graph version +1 and
 * `professional.updated` in the outbox. Unchanged states write nothing.
 */
export async function updateProviderRecord(
  tx: Queryable,
  ctx: WriteContext,
  cur: ProviderView,
  next: ProviderState,
): Promise<{ view: ProviderView; changed: boolean }> {
  if (!providerStateChanged(cur, next)) return { view: cur, changed: false };
  const view = toProviderView(await updateProviderRow(tx, cur.id, { ...next, now: ctx.now }));
  await graphChanged(tx, ctx);
  // Changed data may admit waiting entries the provider failed before.
  await queueProviderTime(tx, { ...ctx, providerId: cur.id });
  await storeEvent(
    tx,
    outboxEvent('professional.updated', professionalEventData(view), {
      platformId: ctx.platformId,
      organizationId: ctx.organizationId,
      mode: ctx.mode,
      createdAt: ctx.now,
    }),
  );
  return { view, changed: true };
}
