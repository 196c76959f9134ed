import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApi } from '../../src/contract/build-openapi.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { SERVICE_VERSION } from '../../src/service/start-gateway-role.js';

const run = promisify(execFile);

/** What `redocly lint --format=json` reports. */
interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

test('Redocly CLI lints openapi.json (recommended rules, redocly.yaml) with 0 errors and 0 warnings', async (t) => {
  const dir = mkdtempSync(join(process.env.TEST_DATA_DIR ?? tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    // The document as GET /openapi.json serves it today.
    writeFileSync(file, JSON.stringify(buildOpenApi(ALL_ROUTES, { version: SERVICE_VERSION, today: new Date() })));
    const lint = await run('node_modules/.bin/redocly', ['lint', file, '--config', 'redocly.yaml', '--format=json'], {
      // No telemetry or update check: the lint makes no connection off this machine.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string; stderr?: string; code?: number }) => {
      // A lint with errors exits 1; its report is still on stdout.
      if (!err.stdout) throw new Error(`redocly lint failed (${err.code}): ${err.stderr}`);
      return { stdout: err.stdout };
    });
    const report = JSON.parse(lint.stdout) as LintReport;
    const problems = report.problems.map(
      (p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`,
    );
    t.is(report.totals.errors, 0, problems.join('\n'));
    t.is(report.totals.warnings, 0, problems.join('\n'));
    t.is(report.totals.ignored, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
