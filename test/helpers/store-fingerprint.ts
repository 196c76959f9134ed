import type { Database } from '../../src/persistence/database.js';
import type { Redis } from '../../src/persistence/redis-client.js';

/** A fingerprint of what the service stores, one entry per table (and one for the actors in Redis). */
export type StoreFingerprint = Record<string, string>;

/**
 * The actors in Redis in one round trip: each state hash's revision and expiry (a transition writes a new revision),
 * or with ARGV[1] = 'exact' every field of it and its history's length; then the number of timers due.
 */
const ACTORS_SCRIPT = `
local parts = {}
for _, k in ipairs(redis.call('KEYS', 'actor:*')) do
  local t = redis.call('TYPE', k)['ok']
  if t == 'hash' then
    local v
    if ARGV[1] == 'exact' then
      local all = redis.call('HGETALL', k)
      local kv = {}
      for i = 1, #all, 2 do kv[#kv + 1] = all[i] .. '=' .. all[i + 1] end
      table.sort(kv)
      v = table.concat(kv, ',')
    else
      local rv = redis.call('HMGET', k, 'revision', 'expireAt')
      v = tostring(rv[1]) .. '/' .. tostring(rv[2])
    end
    parts[#parts + 1] = k .. '=' .. v
  elseif t == 'list' and ARGV[1] == 'exact' and string.sub(k, -8) == ':history' then
    parts[#parts + 1] = k .. '#' .. redis.call('LLEN', k)
  end
end
table.sort(parts)
return #parts .. ':' .. redis.sha1hex(table.concat(parts, '|')) .. ':timers=' .. redis.call('ZCARD', '{timers}:due')
`;

/** The tables of a database (migrations ran before any test calls this), read once. */
const TABLES = new WeakMap<Database, Promise<string[]>>();
function tablesOf(db: Database): Promise<string[]> {
  let tables = TABLES.get(db);
  if (!tables) {
    tables = db
      .query(
        `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
      AND table_name NOT LIKE 'audit%' AND table_name <> 'schema_migrations' ORDER BY 1`,
      )
      .then((r) => r.rows.map((x) => x.t as string));
    TABLES.set(db, tables);
  }
  return tables;
}

/**
 * Fingerprints every table but the audit log (a refused call is recorded there by design) and the migrations, and
 * the actors in Redis. `exact` hashes every row's and every actor's content (a few hundred calls over small tables);
 * otherwise each table gives its row count and the sum of its rows' `xmin` (every insert, update or delete moves one
 * of the two), cheap enough to take after every request of a fuzz run.
 */
export async function storeFingerprint(
  stores: { db: Database; redis: Redis },
  opts: { exact?: boolean } = {},
): Promise<StoreFingerprint> {
  const tables = await tablesOf(stores.db);
  const measure = opts.exact
    ? `md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), ''))`
    : `coalesce(sum(x.xmin::text::bigint), 0)::text`;
  const sql = tables
    .map((t) => `SELECT '${t}' AS t, count(*)::int AS n, ${measure} AS h FROM "${t}" x`)
    .join(' UNION ALL ');
  const out: StoreFingerprint = {};
  for (const r of (await stores.db.query(sql)).rows) out[r.t as string] = `${r.n}:${r.h}`;
  out['redis actors'] = String(
    await stores.redis.sendCommand(['EVAL', ACTORS_SCRIPT, '0', opts.exact ? 'exact' : 'cheap']),
  );
  return out;
}

/** The parts of two fingerprints that differ (`table: before -> after`); empty when nothing changed. */
export function fingerprintChanges(before: StoreFingerprint, after: StoreFingerprint): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => before[k] !== after[k])
    .map((k) => `${k}: ${before[k] ?? '(none)'} -> ${after[k] ?? '(none)'}`);
}
