import { ServiceError } from '../../errors/service-error.js';
import { resolutionActorKind } from '../../../machines/machine-versions.js';
import type { Caller } from '../caller.js';
import type { ResolutionDeps } from './resolution-deps.js';
import { resyncResolutionActor } from './resync-resolution-actor.js';
import type { ResolutionRecord } from './resolution-record.js';

/** What accessResolution uses: the resolution records, the actor store, the clock, and the ledger (a resync). */
export type AccessResolutionDeps = Pick<ResolutionDeps, 'records' | 'actors' | 'clock' | 'db'>;

/**
 * Loads a resolution the caller may access: 404 when unknown, 403 when another organization's, 410 when
 * expired — judged from the deadline itself, so a late expiry timer never makes a dead resolution usable.
 */
export async function accessResolution(
  deps: AccessResolutionDeps,
  caller: Caller,
  id: string,
): Promise<{ record: ResolutionRecord; activeHoldId: string | null; bookingId: string | null; expiresAt: string }> {
  // Both reads at once (one Redis round trip); tenancy is judged on the record before anything is answered.
  const [record, stored] = await Promise.all([deps.records.load(id), deps.actors.getSnapshot(resolutionActorKind, id)]);
  let snap = stored;
  if (!record) throw new ServiceError('RESOLUTION_NOT_FOUND');
  if (record.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  // A resolution whose ledger row outlived its actor (Redis lost it, or a crash before its creation) gets it back.
  if (!snap && (await resyncResolutionActor(deps, record.organizationId, id)))
    snap = await deps.actors.getSnapshot(resolutionActorKind, id);
  if (!snap) throw new ServiceError('RESOLUTION_NOT_FOUND');
  const ctx = snap.context;
  const now = deps.clock().getTime();
  if (snap.value === 'expired' || (ctx.activeHoldId === null && now >= Date.parse(ctx.expiresAt))) {
    throw new ServiceError('RESOLUTION_EXPIRED', `The resolution expired at ${ctx.expiresAt}.`);
  }
  return { record, activeHoldId: ctx.activeHoldId, bookingId: ctx.bookingId, expiresAt: ctx.expiresAt };
}
