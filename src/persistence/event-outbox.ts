import type { Queryable } from './database.js';
import { newId } from './new-id.js';

/** The apiVersion every event envelope carries (CONTRACT part 6). */
export const EVENT_API_VERSION = '2026-11-01';

/** An event to store in the outbox. */
export interface OutboxEvent {
  platformId: string;
  organizationId: string;
  type: string;
  mode: 'live' | 'test';
  data: Record<string, unknown>;
  createdAt: Date;
}

/** Stores an event in the outbox inside the caller's transaction (at-least-once delivery starts here). */
export async function storeEvent(tx: Queryable, e: OutboxEvent): Promise<string> {
  const id = newId('evt', e.createdAt.getTime());
  await tx.query(
    'INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)',
    [id, e.platformId, e.organizationId, e.type, EVENT_API_VERSION, e.mode, JSON.stringify(e.data), e.createdAt],
  );
  return id;
}

/** The SPEC part 6 envelope of a stored event. */
export function eventEnvelope(
  row: { id: string; type: string; api_version: string; created_at: Date; organization_id: string; data: unknown },
  attempt: number,
) {
  return {
    id: row.id,
    type: row.type,
    apiVersion: row.api_version,
    createdAt: row.created_at.toISOString(),
    organizationId: row.organization_id,
    attempt,
    data: row.data,
  };
}
