import test from 'ava';
import pg from 'pg';
import { keysetPage, type KeysetPage } from '../../src/persistence/keyset-page.js';
import { createTestDatabase } from '../helpers/test-database.js';

let database: { url: string; drop(): Promise<void> };
let client: pg.Client;
test.before(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // Ties on created_at (three rows share one instant) and a second organization the filter must keep out.
  await client.query(`CREATE TABLE items (org text, id text, created_at timestamptz);
    INSERT INTO items VALUES
      ('o1', 'a', '2026-01-01T00:00:00Z'), ('o1', 'b', '2026-01-01T00:00:01Z'), ('o1', 'c', '2026-01-01T00:00:01Z'),
      ('o1', 'd', '2026-01-01T00:00:01Z'), ('o1', 'e', '2025-12-31T00:00:00Z'), ('o2', 'f', '2026-01-01T00:00:00Z')`);
});
test.after.always(async () => {
  await client?.end();
  await database?.drop();
});

/** Reads every page of o1's items, `size` at a time, each page starting past the previous page's last row. */
async function readAll(order: KeysetPage['order'], size: number, byRow: boolean) {
  const pages: string[][] = [];
  let last: { id: string; created_at: Date } | undefined;
  for (;;) {
    const query = { where: ['org = $1'], args: ['o1'] as unknown[] };
    const from = last;
    const orderLimit = keysetPage(query, {
      columns: ['created_at', 'id'],
      order,
      after:
        from === undefined
          ? undefined
          : byRow
            ? (p) => `(SELECT i.created_at, i.id FROM items i WHERE i.id = ${p(from.id)})`
            : [from.created_at, from.id],
      limit: size,
    });
    const r = await client.query(`SELECT * FROM items WHERE ${query.where.join(' AND ')} ${orderLimit}`, query.args);
    if (r.rows.length === 0) return pages;
    pages.push(r.rows.map((row) => row.id as string));
    last = r.rows[r.rows.length - 1];
  }
}

test('pages of a two-column keyset cover every row once, in order, across ties of the first column', async (t) => {
  t.deepEqual(await readAll('desc', 2, false), [['d', 'c'], ['b', 'a'], ['e']]);
  t.deepEqual(await readAll('asc', 2, false), [['e', 'a'], ['b', 'c'], ['d']]);
  t.deepEqual(await readAll('desc', 2, true), [['d', 'c'], ['b', 'a'], ['e']]);
});

test('a one-column keyset compares the column itself and numbers its parameters after the filter', (t) => {
  const query = { where: ['org = $1'], args: ['o1'] as unknown[] };
  const orderLimit = keysetPage(query, { columns: ['id'], order: 'asc', after: ['b'], limit: 3 });
  t.deepEqual(query, { where: ['org = $1', 'id > $2'], args: ['o1', 'b', 3] });
  t.is(orderLimit, 'ORDER BY id LIMIT $3');
  const first = { where: [], args: [] as unknown[] };
  t.is(
    keysetPage(first, { columns: ['created_at', 'id'], order: 'desc', limit: 5 }),
    'ORDER BY created_at DESC, id DESC LIMIT $1',
  );
  t.deepEqual(first.where, []);
});
