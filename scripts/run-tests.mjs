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

const args = ['ava', '--tap', ...process.argv.slice(2)];
const child = spawn('npx', args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
let passed = 0;
let failed = 0;
let skipped = 0;
let buffer = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  buffer += chunk.toString();
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (/^ok \d+/.test(line)) {
      if (/# SKIP/i.test(line)) skipped++;
      else passed++;
    } else if (/^not ok \d+/.test(line)) {
      if (/# TODO/i.test(line)) skipped++;
      else failed++;
    }
  }
});
const code = await new Promise((r) => child.on('close', (c) => r(c ?? 1)));
for (const stop of stops) await stop().catch(() => undefined);
rmSync(dataDir, { recursive: true, force: true });
const exitCode = code !== 0 || failed > 0 || passed === 0 ? 1 : 0;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(exitCode);
