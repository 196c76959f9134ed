// Ratchet on SQL outside src/persistence (issue 14, "Layers leak"): counts the `.query(` calls and the SQL statement
// literals in src/application and src/api (the typed services) and fails when either is above its ceiling below. Moving SQL into repositories lowers
// the counts; then lower the ceilings to the new counts, so SQL in src/application can only go down.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Ceilings: the lowest counts reached so far (70 and 73 when the ratchet was set). Lower them, never raise them. */
const CEILING = { queryCalls: 0, sqlLiterals: 0 };

const root = process.cwd();
const dirs = [join(root, 'src/application'), join(root, 'src/api')];
const QUERY_CALL = /\.query\(/g;
// A string or template literal that starts (after whitespace) like an SQL statement.
const SQL_LITERAL = /[`'"]\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s)/g;

/** Lists the .ts files below a folder. */
function list(d) {
  return readdirSync(d).flatMap((name) => {
    const p = join(d, name);
    return statSync(p).isDirectory() ? list(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const counts = { queryCalls: 0, sqlLiterals: 0 };
const perFile = [];
for (const file of dirs.flatMap(list)) {
  const text = readFileSync(file, 'utf8');
  const q = text.match(QUERY_CALL)?.length ?? 0;
  const s = text.match(SQL_LITERAL)?.length ?? 0;
  counts.queryCalls += q;
  counts.sqlLiterals += s;
  if (q + s > 0) perFile.push(`  ${relative(root, file)}: ${q} .query( calls, ${s} SQL literals`);
}

const over = Object.keys(CEILING).filter((k) => counts[k] > CEILING[k]);
if (over.length > 0) {
  console.error(
    `SQL in src/application and src/api went up (${over.map((k) => `${k} ${counts[k]} > ${CEILING[k]}`).join(', ')}): ` +
      'put new SQL in a repository in src/persistence and call it from the operation.',
  );
  console.error(perFile.join('\n'));
  process.exit(1);
}
const under = Object.keys(CEILING).filter((k) => counts[k] < CEILING[k]);
const hint =
  under.length > 0
    ? ` (below the ceiling: lower CEILING in scripts/check-sql-layer.mjs to ${JSON.stringify(counts)})`
    : '';
console.log(
  `SQL in src/application and src/api: ${counts.queryCalls} .query( calls, ${counts.sqlLiterals} SQL literals${hint}`,
);
