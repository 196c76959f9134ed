import { ServiceError } from '../../errors/service-error.js';
import { resolutionActorKind, holdActorKind } from '../../../machines/machine-versions.js';
import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import type { Queryable } from '../../persistence/database.js';
import { newId } from '../../persistence/new-id.js';
import type { Caller } from '../caller.js';
import { recordAudit } from '../record-audit.js';
import { accessResolution } from '../resolution/read-resolution.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import type { ResolutionRecord } from '../resolution/resolution-record.js';
import { claimError, claimLockKey, endClaim, endLapsedHolds } from './slot-claims.js';
import { AUDIT_INSERT_COLUMNS, auditInsertParams, auditSelectList } from '../../persistence/audit-log.js';
import { EVENT_API_VERSION, storeEvent } from '../../persistence/event-outbox.js';
import { translateDatabaseError } from '../../persistence/database.js';
import { auditActor } from '../caller.js';
import { holdStep, toHoldView, type HoldRow } from './hold-state.js';

const DAY_MS = 86_400_000;
const HOLD_COLUMNS = 'ref_id, organization_id, platform_id, provider_id, resolution_id, option_id, active, expires_at, ended_at, end_reason, booking_id, mode, created_at';

/** The latest hold of an option, or undefined. */
export async function latestHold(db: Queryable, resolutionId: string, optionId: string, forUpdate = false): Promise<HoldRow | undefined> {
  const r = await db.query({ name: `latest-hold${forUpdate ? '-for-update' : ''}`, text: `SELECT ${HOLD_COLUMNS} FROM slot_claims WHERE kind = 'hold' AND resolution_id = $1 AND option_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1${forUpdate ? ' FOR UPDATE' : ''}`, values: [resolutionId, optionId] });
  return r.rows[0] as HoldRow | undefined;
}

/** A hold by id, or undefined. */
export async function holdById(db: Queryable, holdId: string, forUpdate = false): Promise<HoldRow | undefined> {
  const r = await db.query({ name: `hold-by-id${forUpdate ? '-for-update' : ''}`, text: `SELECT ${HOLD_COLUMNS} FROM slot_claims WHERE kind = 'hold' AND ref_id = $1${forUpdate ? ' FOR UPDATE' : ''}`, values: [holdId] });
  return r.rows[0] as HoldRow | undefined;
}

/** Reads a resolution record for tenancy only (a hold stays readable after its resolution expired). */
async function recordOfCaller(deps: ResolutionDeps, caller: Caller, id: string): Promise<ResolutionRecord> {
  const record = await deps.records.load(id);
  if (!record) throw new ServiceError('RESOLUTION_NOT_FOUND');
  if (record.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return record;
}

/** Mirrors "the hold ended" into the resolution actor and re-arms its expiry at the (possibly later) deadline. */
export async function endHoldOnResolution(deps: ResolutionDeps, resolutionId: string, holdId: string): Promise<void> {
  await deps.actors.send(resolutionActorKind, resolutionId, { type: 'HOLD_ENDED', holdId, at: deps.clock().toISOString() }, {
    onTransition: (_before, after) => ({ timers: [{ name: 'expire', dueAt: new Date(after.context.expiresAt) }] }),
  }).catch((err) => { if (!(err instanceof ActorNotFoundError)) throw err; });
}

/**
 * Holds an option (CONTRACT part 5): the claim is written to the ledger first, where the exclusion constraint
 * makes the slot unavailable to every other resolution and booking and a unique index allows one active hold
 * per resolution; then the hold actor and the resolution actor mirror it, with a durable expiry timer.
 */
export async function holdOption(deps: ResolutionDeps, caller: Caller, resolutionId: string, optionId: string, ttlSeconds: number) {
  const { record, bookingId, activeHoldId } = await accessResolution(deps, caller, resolutionId);
  const option = record.options.find((o) => o.optionId === optionId);
  if (!option) throw new ServiceError('OPTION_NOT_FOUND');
  if (bookingId) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  const now = deps.clock();
  if (activeHoldId) {
    const active = await holdById(deps.db, activeHoldId);
    if (active?.active && active.expires_at.getTime() > now.getTime()) throw new ServiceError('HOLD_CONFLICT');
  }
  const holdId = newId('hld', now.getTime());
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const claim = { providerId: option.providerId, start: new Date(option.claimStart), end: new Date(option.claimEnd), resolutionId, now };
  const audit = auditInsertParams({
    platformId: caller.platformId, organizationId: caller.organizationId, actor: auditActor(caller), action: 'hold.create', resourceType: 'hold', resourceId: holdId,
    requestId: caller.requestId, before: null, after: { resolutionId, optionId, expiresAt: expiresAt.toISOString() }, timestamp: now,
  });
  const event = { resolutionId, optionId, holdId, expiresAt: expiresAt.toISOString(), reason: 'held' };
  // The claim, its event and its audit entry in one statement; holds past their lifetime whose timer has not
  // fired yet are ended first only when they are in the way (rare), then the claim is tried once more.
  const claimHold = async (db: Queryable) => {
    const r = await db.query({
      name: 'claim-hold',
      text: `WITH lk AS (SELECT pg_advisory_xact_lock(hashtext($14)) AS locked),
       claim AS (
         INSERT INTO slot_claims (id, organization_id, platform_id, provider_id, kind, ref_id, resolution_id, option_id, during, active, expires_at, mode, created_at)
         SELECT $1, $2, $3, $4, 'hold', $5, $6, $7, tstzrange($8::timestamptz, $9::timestamptz), true, $10::timestamptz, $11, $12::timestamptz FROM lk
         WHERE NOT EXISTS (SELECT 1 FROM bookings WHERE resolution_id = $6)
         RETURNING ref_id),
       ev AS (
         INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
         SELECT $13, $3, $2, 'option.held', $15, $11, $16::jsonb, $12::timestamptz FROM claim),
       au AS (INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) SELECT ${auditSelectList(17)} FROM claim)
       SELECT count(*)::int AS claimed FROM claim`,
      values: [newId('clm', now.getTime()), caller.organizationId, caller.platformId, option.providerId, holdId, resolutionId, optionId, claim.start, claim.end, expiresAt,
        caller.mode, now, newId('evt', now.getTime()), claimLockKey(option.providerId), EVENT_API_VERSION, JSON.stringify(event), ...audit.params],
    });
    if (r.rows[0].claimed === 0) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  };
  try {
    await claimHold(deps.db);
  } catch (err) {
    const mapped = claimError(err);
    if (!(mapped instanceof ServiceError) || (mapped.code !== 'SLOT_UNAVAILABLE' && mapped.code !== 'HOLD_CONFLICT')) throw translateDatabaseError(mapped);
    await deps.db.transaction(async (tx) => {
      await endLapsedHolds(tx, claim);
      await claimHold(tx).catch((e) => { throw claimError(e); });
    });
  }
  await Promise.all([
    deps.actors.create(holdActorKind, holdId, { holdId, resolutionId, optionId, at: now.toISOString(), expiresAt: expiresAt.toISOString() }, {
      timers: [{ name: 'expire', dueAt: expiresAt }], expireAt: new Date(now.getTime() + DAY_MS),
    }),
    (async () => {
      // A previous hold that lapsed ends on the resolution too, so the new one can start there.
      if (activeHoldId) await endHoldOnResolution(deps, resolutionId, activeHoldId);
      await deps.actors.send(resolutionActorKind, resolutionId, { type: 'HOLD_STARTED', holdId, at: now.toISOString() });
    })(),
  ]);
  return { holdId, status: 'active', expiresAt: expiresAt.toISOString(), resolutionId, optionId };
}

/** Reads the latest hold of an option. */
export async function getHold(deps: ResolutionDeps, caller: Caller, resolutionId: string, optionId: string) {
  const record = await recordOfCaller(deps, caller, resolutionId);
  if (!record.options.some((o) => o.optionId === optionId)) throw new ServiceError('OPTION_NOT_FOUND');
  const hold = await latestHold(deps.db, resolutionId, optionId);
  if (!hold) throw new ServiceError('HOLD_NOT_FOUND');
  return toHoldView(hold, deps.clock());
}

/** Releases the option's hold; releasing again answers the same body; an expired hold is 410 HOLD_EXPIRED. */
export async function releaseHold(deps: ResolutionDeps, caller: Caller, resolutionId: string, optionId: string) {
  const record = await recordOfCaller(deps, caller, resolutionId);
  if (!record.options.some((o) => o.optionId === optionId)) throw new ServiceError('OPTION_NOT_FOUND');
  const now = deps.clock();
  const outcome = await deps.db.transaction(async (tx) => {
    const hold = await latestHold(tx, resolutionId, optionId, true);
    if (!hold) throw new ServiceError('HOLD_NOT_FOUND');
    const step = holdStep(hold, { type: 'RELEASE', at: now.toISOString() });
    if (step.value === 'released' && step.changed) {
      await endClaim(tx, hold.ref_id, 'released', now);
      await storeEvent(tx, { platformId: caller.platformId, organizationId: caller.organizationId, type: 'option.released', mode: caller.mode, createdAt: now, data: { resolutionId, optionId, holdId: hold.ref_id, releasedAt: now.toISOString(), reason: 'released' } });
      await recordAudit(tx, caller, now, { action: 'hold.release', resourceType: 'hold', resourceId: hold.ref_id, before: { status: 'active' }, after: { status: 'released' } });
    } else if (step.value === 'expired' && hold.active) {
      await endClaim(tx, hold.ref_id, 'expired', now);
      await tx.query('UPDATE slot_claims SET ended_at = expires_at WHERE ref_id = $1', [hold.ref_id]);
      await storeEvent(tx, { platformId: caller.platformId, organizationId: caller.organizationId, type: 'option.released', mode: caller.mode, createdAt: now, data: { resolutionId, optionId, holdId: hold.ref_id, releasedAt: hold.expires_at.toISOString(), reason: 'expired' } });
    }
    return { value: step.value, changed: step.changed, hold: (await holdById(tx, hold.ref_id))! };
  });
  if (outcome.changed) {
    await deps.actors.send(holdActorKind, outcome.hold.ref_id, { type: 'RELEASE', at: now.toISOString() }).catch((err) => { if (!(err instanceof ActorNotFoundError)) throw err; });
    await endHoldOnResolution(deps, resolutionId, outcome.hold.ref_id);
  }
  if (outcome.value === 'expired') throw new ServiceError('HOLD_EXPIRED', `The hold expired at ${outcome.hold.expires_at.toISOString()}.`);
  if (outcome.value === 'consumed') throw new ServiceError('HOLD_RELEASED', 'The hold was used to confirm a booking and can no longer be released.');
  return toHoldView(outcome.hold, now);
}

/** The durable expiry timer of a hold: ends the claim if its lifetime passed, stores option.released, mirrors. */
export async function expireHold(deps: ResolutionDeps, holdId: string): Promise<void> {
  const now = deps.clock();
  const ended = await deps.db.transaction(async (tx) => {
    const hold = await holdById(tx, holdId, true);
    if (!hold || !hold.active) return undefined;
    const step = holdStep(hold, { type: 'EXPIRE', at: now.toISOString() });
    if (!step.changed) return undefined;
    await tx.query(`UPDATE slot_claims SET active = false, ended_at = expires_at, end_reason = 'expired' WHERE ref_id = $1`, [holdId]);
    await storeEvent(tx, { platformId: hold.platform_id, organizationId: hold.organization_id, type: 'option.released', mode: hold.mode, createdAt: now, data: { resolutionId: hold.resolution_id, optionId: hold.option_id, holdId, releasedAt: hold.expires_at.toISOString(), reason: 'expired' } });
    return hold;
  });
  const hold = ended ?? (await holdById(deps.db, holdId));
  if (!hold) return;
  await deps.actors.send(holdActorKind, holdId, { type: 'EXPIRE', at: now.toISOString() }).catch((err) => { if (!(err instanceof ActorNotFoundError)) throw err; });
  if (!hold.active || ended) await endHoldOnResolution(deps, hold.resolution_id, holdId);
}
