// Runs the ava suite against private Redis and PostgreSQL that this run starts and stops itself
// (or REDIS_URL / DATABASE_URL when given), then prints the plain "N passed, N failed" line CI reads.
import { spawn } from 'node:child_process';
import { rmSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.cwd();
const dataDir = resolve(root, '.test-data', String(process.pid));
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

const env = { ...process.env, LOG_LEVEL: 'silent', TEST_DATA_DIR: dataDir };
const stops = [];
if (!process.env.DATABASE_URL) {
  const { register } = await import('tsx/esm/api');
  register();
  const { startEmbeddedPostgres } = await import(pathToFileURL(join(root, 'src/launcher/embedded-postgres.ts')).href);
  const pg = await startEmbeddedPostgres({ dir: join(dataDir, 'postgres') });
  env.TEST_DATABASE_URL = pg.url;
  stops.push(() => pg.stop());
} else {
  env.TEST_DATABASE_URL = process.env.DATABASE_URL;
}
if (process.env.REDIS_URL) env.TEST_REDIS_URL = process.env.REDIS_URL;

/** Runs ava with `args` on the `node` binary given: its counts of passed, failed and skipped tests. */
async function runAva(node, args) {
  const cli = join(root, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
  const child = spawn(node, [cli, '--tap', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const counts = { passed: 0, failed: 0, skipped: 0 };
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (/^ok \d+/.test(line)) {
        if (/# SKIP/i.test(line)) counts.skipped++;
        else counts.passed++;
      } else if (/^not ok \d+/.test(line)) {
        if (/# TODO/i.test(line)) counts.skipped++;
        else counts.failed++;
      }
    }
  });
  const code = await new Promise((r) => child.on('close', (c) => r(c ?? 1)));
  return { ...counts, code };
}

const files = process.argv.slice(2);
// TEST_NODE runs the tests on another Node.js binary (e.g. `TEST_NODE=$(node scripts/fetch-node.mjs)`).
const runs = [await runAva(process.env.TEST_NODE || process.execPath, files)];
// A whole run also runs the API tests on Node.js 24 LTS, fetched from the npm registry (scripts/fetch-node.mjs): the
// service supports 22 and 24 as well as the machine's Node.
if (files.length === 0) {
  const { fetchNode, NODE_24 } = await import(pathToFileURL(join(root, 'scripts/fetch-node.mjs')).href);
  let node24;
  try {
    node24 = fetchNode();
  } catch (err) {
    console.error(`Node.js ${NODE_24.version} could not be fetched: ${err.message}`);
  }
  const run = node24 ? await runAva(node24, ['test/api/**/*.test.ts']) : { passed: 0, failed: 1, skipped: 0, code: 1 };
  console.log(`Node.js ${NODE_24.version}, API tests: ${run.passed} passed, ${run.failed} failed`);
  runs.push(run);
}
const passed = runs.reduce((n, r) => n + r.passed, 0);
const failed = runs.reduce((n, r) => n + r.failed, 0);
const skipped = runs.reduce((n, r) => n + r.skipped, 0);
const code = runs.some((r) => r.code !== 0) ? 1 : 0;
for (const stop of stops) await stop().catch(() => undefined);
rmSync(dataDir, { recursive: true, force: true });
const exitCode = code !== 0 || failed > 0 || passed === 0 ? 1 : 0;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(exitCode);
