// The order and the grouping of the test files in a whole run: ava.config.mjs sorts the files by `rank`, and
// scripts/run-tests.mjs runs the groups that writeTestGroups writes into the compiled tree (docs/testing.md).
import { mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { transformSync } from 'esbuild';
import { filesUnder } from './build-tests.mjs';

/**
 * The test files that took longest in a whole `npm test` (45 to 140 s each on the loaded 2-core machine; docs/testing.md),
 * longest first. They start first, so that no long file starts last while the other slot has nothing left to do, and
 * the waits of the multi-process tests overlap other files' work. A file missing here only runs later: the rest
 * follow in name order.
 */
export const SLOW_FIRST = [
  'test/ops/cli.test.ts',
  'test/ops/crash-recovery.test.ts',
  'test/console/operator-pages.test.ts',
  'test/domain/license-screening.test.ts',
  'test/console/keys-and-webhooks.test.ts',
  'test/ops/service-processes.test.ts',
  'test/ops/waitlist-offers-concurrency.test.ts',
  'test/security/stream-limits.test.ts',
  'test/console/data-pages.test.ts',
  'test/ops/webhook-kill.test.ts',
  'test/ops/claims-soak.test.ts',
  'test/api/fuzz.test.ts',
  'test/security/idempotency-crash.test.ts',
  'test/console/inspector.test.ts',
  'test/ops/redis-cluster.test.ts',
  'test/admission/overload.test.ts',
  'test/security/metrics-scrape.test.ts',
  'test/ops/audit-two-processes.test.ts',
  'test/ops/start-stop.test.ts',
  'test/ops/rolling-restart.test.ts',
  'test/ops/store-hang.test.ts',
  'test/ops/no-double-booking.test.ts',
  'test/ops/key-revocation.test.ts',
  'test/ops/store-supervision.test.ts',
  'test/security/metrics-access.test.ts',
  'test/ops/workers-resume.test.ts',
];

/**
 * Rank of `file` (an absolute path, `.ts` or its compiled `.js`): its place in SLOW_FIRST, then the groups (each runs
 * several files, so they start before the single files that fill the end), then every other file.
 */
export const rank = (file) => {
  const source = file.replace(/\.js$/, '.ts');
  const i = SLOW_FIRST.findIndex((f) => source.endsWith(`/${f}`));
  if (i >= 0) return i;
  return source.includes('/test/groups/') ? SLOW_FIRST.length : SLOW_FIRST.length + 1;
};

/**
 * The folders whose test files a whole run loads several to a process: each file starts its service in-process on
 * stores of its own, and none kills or stops a process, drives a browser or measures the process itself. Loading the
 * service costs each test process 0.75-0.9 s of CPU (Node's module loader: some 1,600 modules), most of what a small file
 * costs; in groups of GROUP_SIZE it is paid once per group.
 */
const GROUPED_FOLDERS = [
  'api',
  'application',
  'config',
  'contract',
  'domain',
  'gateway',
  'grpc',
  'machines',
  'persistence',
  'service',
];

/** Test files loaded together in one process. */
const GROUP_SIZE = 4;

/**
 * Why a compiled test file of a grouped folder runs alone anyway, or undefined: ava runs `beforeEach`/`afterEach`
 * hooks for every test of the process and shares `t.context` across it; a file that sets process-wide state (an
 * environment variable, a process listener) would set it for the others, and one that blocks its event loop on purpose
 * (a busy process) would stall the others' services; a group's files are evaluated in one tick
 * (test/helpers/grouped-test.ts); the long files start first on their own.
 */
function soloReason(buildDir, path, text) {
  if (SLOW_FIRST.includes(path.replace(/\.js$/, '.ts'))) return 'starts first (SLOW_FIRST)';
  if (!AVA_IMPORT.test(text)) return "no plain `import test from 'ava'`";
  if (/\b(beforeEach|afterEach)\b/.test(text)) return 'per-test hooks';
  if (/\bt\.context\b/.test(text)) return 't.context';
  if (/process\.(on|once)\(|process\.env\.\w+\s*=[^=]/.test(text)) return 'process-wide state';
  if (/while \((Date|performance)\.now\(\) <|Atomics\.wait\(/.test(text))
    return "blocks its process's event loop on purpose";
  if (awaitsAtTopLevel(join(buildDir, path), text))
    return 'awaits at its top level (a group declares its tests in one tick)';
  return undefined;
}

/** Whether the module `text` has a top-level await (esbuild refuses to turn one into CommonJS). */
function hasTopLevelAwait(text) {
  try {
    transformSync(text, { format: 'cjs', logLevel: 'silent' });
    return false;
  } catch {
    return true;
  }
}

/** Answers, per compiled module path, whether it or a module it imports (relative imports, transitively) awaits at its top level. */
const awaiting = new Map();

/**
 * Whether the compiled module at `path` (absolute), or one it imports from the tree, awaits at its top level: such a
 * module is evaluated asynchronously, after the group's next files, so its tests would be named after another file.
 */
function awaitsAtTopLevel(path, text = readFileSync(path, 'utf8')) {
  const known = awaiting.get(path);
  if (known !== undefined) return known;
  awaiting.set(path, false); // an import cycle ends here
  let found = hasTopLevelAwait(text);
  for (const [, spec] of text.matchAll(/(?:\bfrom|^import)\s*"(\.{1,2}\/[^"]+\.js)"/gm)) {
    if (found) break;
    let next;
    try {
      next = realpathSync(join(dirname(path), spec));
    } catch {
      continue; // not in the tree (a file read by other means); ava reports a missing module itself
    }
    found = awaitsAtTopLevel(next);
  }
  awaiting.set(path, found);
  return found;
}

/**
 * esbuild's JavaScript for `import test from 'ava'` (and `import test, { type X } from 'ava'`), or that import as an
 * earlier writeTestGroups over the same build left it (pointed at the helper).
 */
const AVA_IMPORT = /^import (\w+)(?:, \{\})? from "(?:ava|(?:\.\.?\/)+helpers\/grouped-test\.js)";$/m;

/**
 * Writes the test groups of a whole run into the compiled tree `buildDir` (scripts/build-tests.mjs): for each grouped
 * folder, files of GROUP_SIZE in name order become `test/groups/<folder>-<n>.test.js`, which loads them one after
 * another (test/helpers/grouped-test.ts prefixes each file's titles with its name); each member's ava import is
 * pointed at that helper. Returns the files for ava, groups first, every test file once, relative to `buildDir` (and
 * `filesOf(folder)`, those of one folder).
 */
export function writeTestGroups(buildDir) {
  const groupsDir = join(buildDir, 'test', 'groups');
  rmSync(groupsDir, { recursive: true, force: true });
  mkdirSync(groupsDir, { recursive: true });
  const helper = join(buildDir, 'test', 'helpers', 'grouped-test.js');
  // Imported before each member (a module per query string): names the file whose tests are declared next.
  writeFileSync(
    join(groupsDir, 'member.js'),
    "import { enterGroupMember } from '../helpers/grouped-test.js';\n" +
      "enterGroupMember(new URL(import.meta.url).searchParams.get('name'));\n",
  );
  const groups = [];
  const alone = [];
  for (const folder of readdirSync(join(buildDir, 'test')).sort()) {
    if (folder === 'groups') continue;
    const files = filesUnder(buildDir, `test/${folder}`, (name) => name.endsWith('.test.js')).sort();
    if (!GROUPED_FOLDERS.includes(folder)) {
      alone.push(...files);
      continue;
    }
    const members = [];
    for (const path of files) {
      const text = readFileSync(join(buildDir, path), 'utf8');
      if (soloReason(buildDir, path, text) !== undefined) alone.push(path);
      else members.push({ path, text });
    }
    for (let i = 0; i < members.length; i += GROUP_SIZE) {
      const chunk = members.slice(i, i + GROUP_SIZE);
      const file = `test/groups/${folder}-${i / GROUP_SIZE + 1}.test.js`;
      for (const m of chunk) {
        const abs = join(buildDir, m.path);
        const to = relative(dirname(abs), helper);
        writeFileSync(abs, m.text.replace(AVA_IMPORT, `import $1 from "${to.startsWith('.') ? to : `./${to}`}";`));
      }
      const lines = chunk.flatMap((m) => {
        const name = m.path.replace(/^test\//, '').replace(/\.test\.js$/, '');
        return [
          `import './member.js?name=${encodeURIComponent(name)}';`,
          `import '../${m.path.replace(/^test\//, '')}';`,
        ];
      });
      writeFileSync(
        join(buildDir, file),
        ['// Written by scripts/test-plan.mjs: these test files run in this one process.', ...lines, ''].join('\n'),
      );
      groups.push({ file, folder, members: chunk.map((m) => m.path) });
    }
  }
  const files = [...groups.map((g) => g.file), ...alone];
  /** The files for ava that run the tests of one folder of test/ (its groups and its files alone). */
  const filesOf = (folder) => [
    ...groups.filter((g) => g.folder === folder).map((g) => g.file),
    ...alone.filter((f) => f.startsWith(`test/${folder}/`)),
  ];
  return { files, groups, alone, filesOf };
}
