import test from 'ava';
import { linkAuditChain } from '../../src/persistence/audit-chain.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { runMigrations } from '../../src/persistence/run-migrations.js';
import { verifyAuditChain } from '../../src/persistence/verify-audit-chain.js';
import { createTestDatabase } from '../helpers/test-database.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Database;
test.before(async () => {
  database = await createTestDatabase({ schema: 'migrated' });
  db = createDatabase(database.url);
  await runMigrations(db.pool);
});
test.after.always(async () => {
  await db?.close();
  await database?.drop();
});

test('the sequencer follows transaction ids in numeric order across a change of digit count, in batches', async (t) => {
  // Transaction ids as a long-lived cluster has them: 8 and 9, then 10 and 11 (as text, "9" sorts after "10").
  // All are far below the horizon (initdb alone used hundreds), so all are final.
  for (const [i, txid] of ['8', '9', '10', '11', '11'].entries()) {
    await db.query(
      `INSERT INTO audit_events (id, platform_id, organization_id, actor, action, resource_type, "timestamp", txid)
      VALUES ($1, 'plt_x', 'org_digits', '{"type":"system"}', 'test.digits', 'test', now(), $2::xid8)`,
      [`aud_digits_${i}`, txid],
    );
  }
  let passes = 0;
  for (;;) {
    const pass = await linkAuditChain(db, { batch: 2 });
    t.true(pass.locked);
    passes++;
    if (pass.caughtUp) break;
  }
  t.is(passes, 3);
  const links = (
    await db.query(
      `SELECT event_id, txid::text AS txid, position FROM audit_chain WHERE organization_id = 'org_digits' ORDER BY position`,
    )
  ).rows;
  t.deepEqual(
    links.map((l) => [l.event_id, l.txid, Number(l.position)]),
    [
      ['aud_digits_0', '8', 1],
      ['aud_digits_1', '9', 2],
      ['aud_digits_2', '10', 3],
      ['aud_digits_3', '11', 4],
      ['aud_digits_4', '11', 5],
    ],
  );
  t.is((await linkAuditChain(db, { batch: 2 })).linked, 0, 'nothing is linked twice');
  const report = await verifyAuditChain(db);
  t.deepEqual(report.breaks, []);
  t.is(report.linked, 5);
});
