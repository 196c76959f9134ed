import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import type pg from 'pg';
import { linkAuditChain } from '../../src/persistence/audit-chain.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { runMigrations } from '../../src/persistence/run-migrations.js';
import { verifyAuditChain, verifyOrganizationAuditChain } from '../../src/persistence/verify-audit-chain.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { inRolledBackTransaction } from '../helpers/rolled-back-transaction.js';

/**
 * Links until `count` events are in the chain. A pass can catch up without linking everything: the horizon is
 * cluster-wide, so a transaction of another test's database holds it back for a while; poll until it moves.
 */
async function linkUntil(count: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    await linkAuditChain(db);
    const r = await db.query('SELECT count(*)::int AS n FROM audit_chain');
    if (r.rows[0].n >= count) return;
    await sleep(50);
  }
  throw new Error(`the audit chain did not reach ${count} links within 30 s`);
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Database;
test.before(async () => {
  database = await createTestDatabase({ schema: 'migrated' });
  db = createDatabase(database.url);
  await runMigrations(db.pool);
  // Two organizations, events interleaved, all linked.
  for (let i = 0; i < 6; i++) {
    for (const org of ['org_a', 'org_b']) {
      await db.query(
        `INSERT INTO audit_events (id, platform_id, organization_id, actor, action, resource_type, "timestamp")
        VALUES ($1, 'plt_x', $2, '{"type":"system"}', 'test.event', 'test', now())`,
        [`aud_${org}_${i}`, org],
      );
    }
  }
  await linkUntil(12);
});
test.after.always(async () => {
  await db?.close();
  await database?.drop();
});

test.serial(
  'a whole chain and a window of it verify; the window says where it starts and that it is not complete',
  async (t) => {
    t.deepEqual((await verifyAuditChain(db)).breaks, []);
    t.deepEqual(await verifyOrganizationAuditChain(db, 'org_a', { latest: 100 }), {
      checked: 6,
      linked: 6,
      pending: 0,
      breaks: [],
      fromPosition: 1,
      toPosition: 6,
      complete: true,
    });
    t.deepEqual(await verifyOrganizationAuditChain(db, 'org_a', { latest: 2 }), {
      checked: 2,
      linked: 2,
      pending: 0,
      breaks: [],
      fromPosition: 5,
      toPosition: 6,
      complete: false,
    });
    t.deepEqual(await verifyOrganizationAuditChain(db, 'org_a', { latest: 6 }), {
      checked: 6,
      linked: 6,
      pending: 0,
      breaks: [],
      fromPosition: 1,
      toPosition: 6,
      complete: true,
    });
    t.deepEqual(await verifyOrganizationAuditChain(db, 'org_none', { latest: 10 }), {
      checked: 0,
      linked: 0,
      pending: 0,
      breaks: [],
      fromPosition: 0,
      toPosition: 0,
      complete: true,
    });
  },
);

test.serial(
  'breaks inside the window are found, only for that organization; ones before the window are not read',
  async (t) => {
    const links = (
      await db.query(`SELECT event_id, position FROM audit_chain WHERE organization_id = 'org_a' ORDER BY position`)
    ).rows as { event_id: string }[];
    const ids = links.map((l) => l.event_id);
    await inRolledBackTransaction(db.pool, async (tx) => {
      await tx.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update');
      await tx.query(`UPDATE audit_events SET action = 'forged' WHERE id = $1`, [ids[4]]);
      t.deepEqual((await verifyOrganizationAuditChain(tx, 'org_a', { latest: 3 })).breaks, [
        { organizationId: 'org_a', id: ids[4], reason: 'hash does not match the content' },
      ]);
      t.deepEqual(
        (await verifyOrganizationAuditChain(tx, 'org_a', { latest: 1 })).breaks,
        [],
        'position 5 lies before a window of one',
      );
      t.deepEqual((await verifyOrganizationAuditChain(tx, 'org_b', { latest: 100 })).breaks, []);
    });
    await inRolledBackTransaction(db.pool, async (tx) => {
      // The link just before the window is its anchor: a broken anchor breaks the window's first link.
      await tx.query('ALTER TABLE audit_chain DISABLE TRIGGER audit_chain_no_update');
      await tx.query(`UPDATE audit_chain SET hash = repeat('f', 64) WHERE event_id = $1`, [ids[2]]);
      t.deepEqual(
        (await verifyOrganizationAuditChain(tx, 'org_a', { latest: 3 })).breaks.map((b) => [b.id, b.reason]),
        [[ids[3], 'prev_hash does not match the previous link']],
      );
    });
    await inRolledBackTransaction(db.pool, async (tx) => {
      await tx.query('ALTER TABLE audit_chain DISABLE TRIGGER audit_chain_no_update');
      await tx.query('DELETE FROM audit_chain WHERE event_id = $1', [ids[3]]);
      const reasons = (await verifyOrganizationAuditChain(tx, 'org_a', { latest: 4 })).breaks.map(
        (b) => `${b.id}: ${b.reason}`,
      );
      t.true(reasons.includes(`${ids[3]}: event was passed over by the sequencer: not linked`), reasons.join('; '));
      t.true(
        reasons.some((r) => r.startsWith(`${ids[4]}: link at position 5 follows position 3`)),
        reasons.join('; '),
      );
    });
    // A committed event the sequencer has not reached yet is pending, not a break.
    await db.query(`INSERT INTO audit_events (id, platform_id, organization_id, actor, action, resource_type, "timestamp")
    VALUES ('aud_new', 'plt_x', 'org_a', '{"type":"system"}', 'test.event', 'test', now())`);
    t.like(await verifyOrganizationAuditChain(db, 'org_a', { latest: 10 }), {
      pending: 1,
      checked: 7,
      linked: 6,
      breaks: [],
    });
    await linkUntil(13);
    t.like(await verifyOrganizationAuditChain(db, 'org_a', { latest: 10 }), {
      pending: 0,
      checked: 7,
      linked: 7,
      toPosition: 7,
      breaks: [],
    });
  },
);
