import pg from 'pg';
import { CreateProviderBody } from '../src/contract/schemas/provider.js';
import { newProviderState } from '../src/application/provider-changes.js';
import { newId } from '../src/persistence/new-id.js';
import type { GeneratedProvider } from './provider-mix.js';

const CHUNK = 5000;

/**
 * Writes providers of an organization, and one service and one weekly schedule for each of them, straight into
 * PostgreSQL (multi-row INSERTs of 5,000), then bumps the organization's graph version once. Provider rows hold
 * the state the API would store (built by the service's own `newProviderState` from the validated import row);
 * services and schedules copy every stored field of the template service and schedule the API made for the
 * organization. A shortcut for the 100,000-provider organization only: it writes no audit events and no outbox
 * events; the report says so. Answers externalId -> { providerId, serviceId }.
 */
export async function seedBySql(o: {
  databaseUrl: string;
  organizationId: string;
  /** Providers to insert (not yet stored). */
  newProviders: readonly GeneratedProvider[];
  /** Providers already stored (by the API) that still need a service and a schedule. */
  storedProviders: readonly { generated: GeneratedProvider; providerId: string }[];
  templateServiceId: string;
  templateScheduleId: string;
}): Promise<Map<string, { providerId: string; serviceId: string }>> {
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  try {
    const svc = (await db.query('SELECT * FROM services WHERE id = $1', [o.templateServiceId])).rows[0];
    const cal = (await db.query('SELECT * FROM calendar_connections WHERE id = $1', [o.templateScheduleId])).rows[0];
    if (!svc || !cal) throw new Error('SQL seeding: the template service or schedule is missing');
    const out = new Map<string, { providerId: string; serviceId: string }>();
    const items = [
      ...o.storedProviders.map((s) => ({ g: s.generated, providerId: s.providerId, insert: false })),
      ...o.newProviders.map((g) => ({ g, providerId: newId('prv'), insert: true })),
    ];
    for (let i = 0; i < items.length; i += CHUNK) {
      const chunk = items.slice(i, i + CHUNK);
      const fresh = chunk.filter((c) => c.insert);
      const states = fresh.map((c) => newProviderState(CreateProviderBody.parse(c.g.row)));
      const serviceIds = chunk.map(() => newId('svc'));
      await db.query('BEGIN');
      if (fresh.length > 0) {
        await db.query(
          `INSERT INTO providers (id, platform_id, organization_id, external_id, status, searchable, doc, profile_version, created_at, updated_at)
           SELECT unnest($1::text[]), $2, $3, unnest($4::text[]), unnest($5::text[]), unnest($6::boolean[]), unnest($7::jsonb[]), 1, now(), now()`,
          [
            fresh.map((c) => c.providerId),
            svc.platform_id,
            o.organizationId,
            states.map((s) => s.externalId),
            states.map((s) => s.status),
            states.map((s) => s.searchable),
            states.map((s) => JSON.stringify(s.doc)),
          ],
        );
      }
      await db.query(
        `INSERT INTO services (id, platform_id, organization_id, provider_id, slug, doc, created_at, updated_at)
         SELECT unnest($1::text[]), $2, $3, unnest($4::text[]), $5, unnest($6::jsonb[]), now(), now()`,
        [
          serviceIds,
          svc.platform_id,
          o.organizationId,
          chunk.map((c) => c.providerId),
          svc.slug,
          chunk.map((c) => JSON.stringify({ ...svc.doc, modality: c.g.serviceModality })),
        ],
      );
      await db.query(
        `INSERT INTO calendar_connections (id, platform_id, organization_id, provider_id, doc, created_at, updated_at)
         SELECT unnest($1::text[]), $2, $3, unnest($4::text[]), unnest($5::jsonb[]), now(), now()`,
        [
          chunk.map(() => newId('cal')),
          cal.platform_id,
          o.organizationId,
          chunk.map((c) => c.providerId),
          chunk.map((c) => JSON.stringify({ ...cal.doc, timezone: c.g.timezone, days: c.g.days })),
        ],
      );
      // In the chunk's transaction, as every writer of the graph does: a graph loaded between two chunks (the snapshot
      // builder's first snapshot, a resolution) is then of a version of its own, and later versions are made from it
      // and the chunks written since (graph_changes), not from rows committed under the version it was labelled with.
      await db.query('UPDATE organizations SET graph_version = graph_version + 1 WHERE id = $1', [o.organizationId]);
      await db.query('COMMIT');
      chunk.forEach((c, k) => out.set(c.g.externalId, { providerId: c.providerId, serviceId: serviceIds[k]! }));
    }
    return out;
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await db.end();
  }
}
