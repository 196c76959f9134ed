import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createDatabase } from '../../src/persistence/database.js';
import { readMigrations, runMigrations } from '../../src/persistence/run-migrations.js';
import { client } from '../helpers/http.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { startTestService, startTestStores } from '../helpers/test-service.js';

test('a restarted service keeps its data and keys', async (t) => {
  const stores = await startTestStores();
  const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
  try {
    const first = await startTestService({ stores, platformKey });
    let org: any;
    let orgKey: string;
    try {
      org = (
        await client(first.url, platformKey).post('/api/v2/organizations', {
          externalId: 'survives-restart',
          name: 'Survivor',
        })
      ).body;
      orgKey = (
        await client(first.url, platformKey).post('/api/v2/api-keys', {
          type: 'organization_test',
          organizationId: org.id,
          name: 'kept',
        })
      ).body.key;
    } finally {
      await first.stop();
    }
    const second = await startTestService({ stores, platformKey });
    try {
      const read = await client(second.url, platformKey).get(`/api/v2/organizations/${org.id}`);
      t.is(read.status, 200);
      t.deepEqual(read.body, org);
      const byOrgKey = await client(second.url, orgKey).get('/api/v2/organizations');
      t.is(byOrgKey.status, 200);
      t.deepEqual(
        byOrgKey.body.data.map((o: any) => o.id),
        [org.id],
      );
      // The bootstrap on restart found the existing platform: still exactly one.
      const platforms = await second.service.deps.db.query('SELECT count(*)::int AS n FROM platforms');
      t.is(platforms.rows[0].n, 1);
      const dup = await client(second.url, platformKey).post('/api/v2/organizations', {
        externalId: 'survives-restart',
        name: 'Again',
      });
      t.is(dup.status, 409);
    } finally {
      await second.stop();
    }
  } finally {
    await stores.stop();
  }
});

test('migrations on an existing database apply nothing', async (t) => {
  const database = await createTestDatabase();
  const db = createDatabase(database.url);
  try {
    const all = readMigrations().map((m) => m.version);
    t.true(all.length >= 1);
    t.deepEqual(await runMigrations(db.pool), all);
    t.deepEqual(await runMigrations(db.pool), []);
    const rows = await db.query('SELECT version FROM schema_migrations ORDER BY version');
    t.deepEqual(
      rows.rows.map((r) => r.version),
      all,
    );
  } finally {
    await db.close();
    await database.drop();
  }
});

test('concurrent migrations from three processes apply each migration once', async (t) => {
  const database = await createTestDatabase();
  const dbs = [createDatabase(database.url), createDatabase(database.url), createDatabase(database.url)];
  try {
    const results = await Promise.all(dbs.map((db) => runMigrations(db.pool)));
    const all = readMigrations().map((m) => m.version);
    t.deepEqual(
      results.flat().sort((a, b) => a - b),
      all,
    );
    const rows = await dbs[0]!.query('SELECT version FROM schema_migrations ORDER BY version');
    t.deepEqual(
      rows.rows.map((r) => r.version),
      all,
    );
  } finally {
    for (const db of dbs) await db.close();
    await database.drop();
  }
});
