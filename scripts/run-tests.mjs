// Runs the ava suite against private Redis and PostgreSQL that this run starts and stops itself
// (or REDIS_URL / DATABASE_URL when given), then prints the plain "N passed, N failed" line CI reads.
// `--checks` (npm test) first runs the static checks, in two lanes, while the stores start (docs/testing.md).
import { spawn } from 'node:child_process';
import { rmSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildDirOf, buildTests } from './build-tests.mjs';
import { writeTestGroups } from './test-plan.mjs';

const root = process.cwd();
const started = Date.now();
const args = process.argv.slice(2);
const withChecks = args[0] === '--checks';
const files = withChecks ? args.slice(1) : args;
const whole = files.length === 0;
const dataDir = resolve(root, '.test-data', String(process.pid));
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

/** Seconds since this run started, for the timing lines. */
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;

/** Writes whole lines to stdout, so that the outputs of concurrent steps never cut into one another's lines. */
function writeLines(text) {
  if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Runs `npm run <name>`, its output kept until it ends: whether it passed, its output and its duration. */
function runCheck(name) {
  const t0 = Date.now();
  return new Promise((done) => {
    const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('close', (code) => {
      const s = Math.round((Date.now() - t0) / 1000);
      writeLines(`# check ${name}: ${code === 0 ? 'passed' : 'FAILED'} (${s} s)\n${out}`);
      done({ name, ok: code === 0, seconds: s });
    });
  });
}

/**
 * The static checks of npm test, in two lanes that take about as long: `typecheck` (tsc) alone, the others one after
 * another, while the stores start and esbuild builds the compiled tree (scripts/build-tests.mjs). Beside the tests
 * instead, they made the main pass as much longer as they were long (docs/testing.md).
 */
async function runChecks() {
  const lanes = [['typecheck'], ['check:generated', 'lint:format', 'lint:proto', 'lint:layers']];
  const results = await Promise.all(
    lanes.map(async (lane) => {
      const done = [];
      for (const name of lane) done.push(await runCheck(name));
      return done;
    }),
  );
  return results.flat();
}

const checks = withChecks ? runChecks() : Promise.resolve([]);

// A whole run runs the compiled tree (scripts/build-tests.mjs, esbuild), built while the stores start: each test
// process then loads plain JavaScript instead of paying tsx's loader for every module. TEST_COMPILED=1 runs the files
// named on the compiled tree too (their `.ts` names are taken as the `.js` ones).
const compiled = whole || process.env.TEST_COMPILED === '1';
const building = compiled ? buildTests(root) : undefined;

/** How many of the checks failed, once they have all ended; their summary line printed. */
async function failedChecksOf(running) {
  const checked = await running;
  if (checked.length > 0)
    console.log(
      `# checks: ${checked.map((c) => `${c.name} ${c.ok ? 'passed' : 'FAILED'} (${c.seconds} s)`).join(', ')}`,
    );
  return checked.filter((c) => !c.ok).length;
}

// The Node.js 24 binary of the main pass is fetched (once; then read from .cache/node) while the stores start.
/** Runs scripts/fetch-node.mjs: the path of the Node.js 24 binary, or undefined when it could not be fetched. */
function fetchNode24() {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(root, 'scripts/fetch-node.mjs')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => {
      if (code === 0) return res(out.trim());
      console.error(`Node.js 24 could not be fetched: ${err.trim()}`);
      res(undefined);
    });
  });
}
const node24 = whole ? fetchNode24() : undefined;

/** The version `node` prints of itself (`24.21.0`). */
function nodeVersionOf(node) {
  if (node === process.execPath) return Promise.resolve(process.versions.node);
  return new Promise((res) => {
    const child = spawn(node, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('close', () => res(out.trim().replace(/^v/, '')));
  });
}

const env = { ...process.env, LOG_LEVEL: 'silent', TEST_DATA_DIR: dataDir };
/** The run's own PostgreSQL server process, whose backends' CPU time the file times cannot see. */
let postgresPid;

/** CPU seconds of the run's PostgreSQL so far: the postmaster's and its ended backends' (from /proc), or undefined. */
function postgresCpu() {
  try {
    const fields = readFileSync(`/proc/${postgresPid}/stat`, 'utf8').split(') ')[1].split(' ');
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / 100;
  } catch {
    return undefined;
  }
}
const stops = [];
const { register } = await import('tsx/esm/api');
register();
if (!process.env.DATABASE_URL) {
  const { startEmbeddedPostgres } = await import(pathToFileURL(join(root, 'src/launcher/embedded-postgres.ts')).href);
  // The run's cluster is thrown away at its end, and no test crashes it (those that stop or kill PostgreSQL start their
  // own, with the service's settings): a commit need not wait for its WAL to reach the disk. Waiting took 6-9 ms per
  // commit on the shared machine against about 1 ms without (docs/testing.md); what other sessions see is unchanged.
  const pg = await startEmbeddedPostgres({
    dir: join(dataDir, 'postgres'),
    extraFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
  });
  env.TEST_DATABASE_URL = pg.url;
  postgresPid = pg.pid;
  stops.push(() => pg.stop());
} else {
  env.TEST_DATABASE_URL = process.env.DATABASE_URL;
}
if (process.env.REDIS_URL) env.TEST_REDIS_URL = process.env.REDIS_URL;
// Every migration applied once, into a template the test files copy (test/helpers/test-database.ts): a copy is much
// cheaper than migrating each file's database.
const { createMigratedTemplate } = await import(pathToFileURL(join(root, 'test/helpers/test-database.ts')).href);
env.TEST_TEMPLATE_DATABASE = `template_${process.pid}`;
stops.unshift(await createMigratedTemplate(env.TEST_DATABASE_URL, env.TEST_TEMPLATE_DATABASE));

/**
 * Prints, from the lines scripts/test-file-timing.mjs wrote to `timingFile`, every test file's wall time and CPU time
 * (its own and its child processes'), longest first, then the sums by folder: where a run's time goes.
 */
function printFileTimes(timingFile, label) {
  let rows;
  try {
    rows = readFileSync(timingFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return;
  }
  const name = (f) => relative(avaCwd, f);
  const cpuOf = (r) => Number(r.cpu) + Number(r.children);
  rows.sort((a, b) => Number(b.wall) - Number(a.wall));
  const lines = [`# file times, ${label}: wall s, CPU s (own + child processes), file`];
  for (const r of rows)
    lines.push(`# file-time ${r.wall} ${cpuOf(r).toFixed(1)} (${r.cpu} + ${r.children}) ${name(r.file)}`);
  const folders = new Map();
  for (const r of rows) {
    const folder = name(r.file).split('/').slice(0, 2).join('/');
    const f = folders.get(folder) ?? { files: 0, wall: 0, cpu: 0 };
    f.files++;
    f.wall += Number(r.wall);
    f.cpu += cpuOf(r);
    folders.set(folder, f);
  }
  const sum = { files: 0, wall: 0, cpu: 0 };
  for (const [folder, f] of [...folders].sort((a, b) => b[1].wall - a[1].wall)) {
    lines.push(`# folder-time ${folder}: ${f.files} files, ${f.wall.toFixed(0)} s wall, ${f.cpu.toFixed(0)} s CPU`);
    sum.files += f.files;
    sum.wall += f.wall;
    sum.cpu += f.cpu;
  }
  lines.push(
    `# file times, ${label}: ${sum.files} files, ${sum.wall.toFixed(0)} s wall in all, ${sum.cpu.toFixed(0)} s CPU`,
  );
  // The pass's span, and its tail: from the start of the last file to start to the end of the pass, the time its
  // slots were not all busy.
  const spans = rows.map((r) => ({ start: r.ended - Number(r.wall) * 1000, end: r.ended })).filter((r) => r.end);
  if (spans.length > 0) {
    const first = Math.min(...spans.map((r) => r.start));
    const last = Math.max(...spans.map((r) => r.end));
    const lastStart = Math.max(...spans.map((r) => r.start));
    lines.push(
      `# file times, ${label}: ${((last - first) / 1000).toFixed(0)} s from the first file's start to the last one's ` +
        `end, ${(sum.wall / ((last - first) / 1000)).toFixed(2)} files at a time on average, ` +
        `${((last - lastStart) / 1000).toFixed(0)} s after the last file started`,
    );
  }
  writeLines(lines.join('\n'));
}

/** How many lines of a failure's report (its "not ok" line and ava's diagnostics) the recap at the end repeats. */
const RECAP_LINES = 25;

/** Runs ava with `args` on the `node` binary given, its TAP output to stdout: its counts of passed, failed and skipped tests. */
async function runAva(node, args, { extraEnv = {}, label = 'main pass' } = {}) {
  const cli = join(root, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
  const timingFile = join(dataDir, `file-times-${label.replace(/\W+/g, '-')}.jsonl`);
  const postgresBefore = postgresCpu();
  const child = spawn(node, [cli, '--tap', ...args], {
    cwd: avaCwd,
    env: { ...env, ...extraEnv, TEST_TIMING_FILE: timingFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  let buffer = '';
  // The failure being read: its "not ok" line and the first lines of ava's diagnostic block after it.
  let failure;
  child.stdout.on('data', (chunk) => {
    buffer += chunk.toString();
    const end = buffer.lastIndexOf('\n') + 1;
    const lines = buffer.slice(0, end);
    buffer = buffer.slice(end);
    writeLines(lines);
    for (const line of lines.split('\n')) {
      if (failure && /^( {2}|# {3})/.test(line) && failure.length < RECAP_LINES) failure.push(line);
      else failure = undefined;
      if (/^ok \d+/.test(line)) {
        if (/# SKIP/i.test(line)) counts.skipped++;
        else counts.passed++;
      } else if (/^not ok \d+/.test(line)) {
        if (/# TODO/i.test(line)) counts.skipped++;
        else {
          counts.failed++;
          failure = [`${label}: ${line}`];
          counts.failures.push(failure);
        }
      }
    }
  });
  const code = await new Promise((r) => child.on('close', (c) => r(c ?? 1)));
  writeLines(buffer);
  // ava ended badly without reporting a failed test: its TAP reporter throws on a test that outlived ava's timeout and
  // ava exits before the files after it ran (avajs/ava#3461). That is a failure of the run, whatever was counted.
  if (code !== 0 && counts.failed === 0) {
    const line = `not ok - ava exited with code ${code} before reporting a failure (a test past ava's timeout: see above)`;
    writeLines(line);
    counts.failed++;
    counts.failures.push([`${label}: ${line}`]);
  }
  printFileTimes(timingFile, label);
  const postgresAfter = postgresCpu();
  if (postgresBefore !== undefined && postgresAfter !== undefined)
    writeLines(`# PostgreSQL, ${label}: ${(postgresAfter - postgresBefore).toFixed(0)} s CPU (its ended backends)`);
  return { ...counts, code };
}

/** Stops the stores and prints the final line CI reads; exits 1 unless every test and check passed. */
async function finish(runs, failedChecks) {
  const passed = runs.reduce((n, r) => n + r.passed, 0);
  const failed = runs.reduce((n, r) => n + r.failed, 0) + failedChecks;
  const skipped = runs.reduce((n, r) => n + r.skipped, 0);
  const code = runs.some((r) => r.code !== 0) ? 1 : 0;
  for (const stop of stops) await stop().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
  const exitCode = code !== 0 || failed > 0 || passed === 0 ? 1 : 0;
  // The failures again, at the end, where a CI log cut to its tail still shows them: their reports, then their names.
  const failures = runs.flatMap((r) => r.failures ?? []);
  if (failures.length > 0) {
    console.log(`# failed tests, their reports:\n${failures.map((f) => f.join('\n')).join('\n')}`);
    console.log(`# failed tests:\n${failures.map((f) => f[0]).join('\n')}`);
  }
  console.log(`# whole run: ${elapsed()}`);
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(exitCode);
}

// As before, the suite does not run when a check failed.
const failedChecks = await failedChecksOf(checks);
if (failedChecks > 0) await finish([], failedChecks);
let avaCwd = root;
if (compiled) {
  const built = await building;
  if (!built) await finish([], 1);
  avaCwd = buildDirOf(root);
  env.TEST_COMPILED = '1';
}
// The compiled tree's test groups (scripts/test-plan.mjs): a whole run runs them and the files left alone; named files
// run as named (a group too: `test/groups/api-1.test.ts`).
const plan = compiled ? writeTestGroups(avaCwd) : undefined;
if (whole && plan)
  console.log(
    `# test groups: ${plan.groups.reduce((n, g) => n + g.members.length, 0)} files in ${plan.groups.length} groups, ` +
      `${plan.alone.length} files alone`,
  );
// A whole run runs the main pass on Node.js 24 LTS (fetched from the npm registry by scripts/fetch-node.mjs while the
// stores started), its workers and the service processes they start with Node's compile cache: each of some 100 test
// processes (a file or a group) loads about 1,600 modules, which costs 1.5-2 s of CPU on Node 20 and about 1 s on Node
// 24 with the cache (docs/testing.md). The API tests then run again on the machine's Node, the one `npm start` runs on.
// TEST_NODE runs the tests on another Node.js binary (e.g. `TEST_NODE=$(node scripts/fetch-node.mjs)`).
const compileCache = { NODE_COMPILE_CACHE: join(root, '.cache', 'node-compile') };
const fetched = node24 ? await node24 : undefined;
const mainNode = process.env.TEST_NODE || fetched || process.execPath;
const runs = [
  await runAva(mainNode, whole ? plan.files : compiled ? files.map((f) => f.replace(/\.ts$/, '.js')) : files, {
    extraEnv: mainNode === process.execPath ? {} : compileCache,
  }),
];
const mainVersion = await nodeVersionOf(mainNode);
console.log(`# suite on Node.js ${mainVersion}: done at ${elapsed()}`);
// The API tests again on the machine's Node (Node.js 20 here: end of life, still supported by `engines`), when the main
// pass ran on another. (Run beside the main pass, a second pass made the 2-core machine busy enough for timing-bound
// tests to fail; docs/testing.md.)
if (whole && mainNode !== process.execPath) {
  // Four at a time: these files wait on their services more than the main pass's do, and nothing runs beside them.
  const run = await runAva(process.execPath, ['--concurrency=4', ...plan.filesOf('api')], {
    label: `Node ${process.versions.node.split('.')[0]} pass`,
  });
  console.log(
    `Node.js ${process.version.slice(1)}, API tests: ${run.passed} passed, ${run.failed} failed (done at ${elapsed()})`,
  );
  runs.push(run);
}
// Without Node.js 24 the run still tests what it can on the machine's Node, and counts the missing pass as a failure.
if (whole && !fetched)
  runs.push({ passed: 0, failed: 1, skipped: 0, code: 1, failures: [['not ok - Node.js 24 could not be fetched']] });
await finish(runs, 0);
