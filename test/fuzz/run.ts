/**
 * `npm run fuzz`: the long fuzz run (FUZZ_REQUESTS, default 10,000; FUZZ_SEED, default 15) on private stores this
 * script starts (or DATABASE_URL / REDIS_URL when given). Prints the counts by route and status and every finding;
 * exits 1 when there is any (a 5xx, an answer outside the envelope, no answer, a refused request that changed data).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startEmbeddedPostgres } from '../../src/launcher/embedded-postgres.js';
import { formatFuzzReport, runFuzz } from './run-fuzz.js';
import { startFuzzService } from './start-fuzz-service.js';

const count = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const seed = Number(process.env.FUZZ_SEED ?? 15);
const dataDir = resolve('.test-data', `fuzz-${process.pid}`);
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });
process.env.TEST_DATA_DIR = dataDir;
if (process.env.REDIS_URL) process.env.TEST_REDIS_URL = process.env.REDIS_URL;
const pg = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres({ dir: join(dataDir, 'postgres') });
process.env.TEST_DATABASE_URL = process.env.DATABASE_URL ?? pg!.url;

let exitCode = 1;
try {
  const svc = await startFuzzService();
  try {
    const report = await runFuzz(svc, {
      count,
      seed,
      progress: (done, r) => process.stderr.write(`fuzz: ${done}/${count} requests, ${r.findings.length} findings\n`),
    });
    console.log(formatFuzzReport(report, 200));
    exitCode = report.findings.length === 0 && report.counts.internalErrors === 0 ? 0 : 1;
  } finally {
    await svc.stop();
  }
} finally {
  await pg?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
