// Compiles the tree once for a whole test run: esbuild turns every TypeScript file into JavaScript in .cache/build, one
// file for one file (no bundling), with the options tsx gives the same files under `npm start` (its loader is esbuild
// too), and every other file of the tree appears there as a symbolic link at its own path, so the compiled tests, the
// service processes they start and the files they read (migrations, fixtures, the console, docs) find each other as in
// the source tree. Test files then load plain JavaScript, without tsx's loader hooks, which cost each process about a
// second of CPU to load the service (docs/testing.md). Type-checking is the `typecheck` check's (npm test runs it while
// this builds, in seconds, instead of tsc emitting for ~37 s). Exits non-zero when esbuild reports an error.
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The directories compiled (tsconfig.json's `include`): mirrored file by file, the others linked whole. */
const COMPILED_DIRS = ['src', 'machines', 'test', 'bench', 'scripts', 'examples'];

/** Top-level entries that never go into the build. */
const LEFT_OUT = new Set(['.git', '.cache', '.test-data', '.data', 'tmp', '.scratch']);

/** Where the compiled tree of `root` lives. */
export const buildDirOf = (root) => join(root, '.cache', 'build');

/** The files under `dir` (relative to `root`, searched to any depth) whose name `keep` accepts, as `dir/...` paths. */
export function filesUnder(root, dir, keep, found = []) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) filesUnder(root, path, keep, found);
    else if (keep(entry.name)) found.push(path);
  }
  return found;
}

/**
 * The TypeScript files under `dir` (relative to `root`) that the build compiles: all of them, the console's too (the
 * service's modules import some of its files; its pages are bundled from the TypeScript, copied beside).
 */
const sourcesOf = (root, dir) => filesUnder(root, dir, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));

/** Makes `link` a symbolic link to `target`, unless it already is one. */
function linkTo(target, link) {
  try {
    const st = lstatSync(link);
    if (st.isSymbolicLink() && readlinkSync(link) === target) return;
    rmSync(link, { recursive: true, force: true });
  } catch {
    // absent
  }
  symlinkSync(target, link);
}

/** Copies `from` (whose stat is `st`) to `to` unless `to` is a file of the same size and modification time. */
function copyIfChanged(from, to, st) {
  try {
    const cur = lstatSync(to);
    if (cur.isFile() && cur.size === st.size && cur.mtimeMs === st.mtimeMs) return;
    rmSync(to, { recursive: true, force: true });
  } catch {
    // absent
  }
  copyFileSync(from, to);
  utimesSync(to, st.atime, st.mtime);
}

/**
 * Mirrors the source directory `src` into `out`: a link for every file that is not compiled output, a directory for
 * every directory; removes what the source no longer has (a deleted test's JavaScript would otherwise still run).
 */
function mirror(srcDir, outDir) {
  mkdirSync(outDir, { recursive: true });
  const names = new Set(readdirSync(srcDir));
  for (const name of names) {
    const from = join(srcDir, name);
    const to = join(outDir, name);
    const st = lstatSync(from);
    if (st.isDirectory()) mirror(from, to);
    // A TypeScript source is copied, not linked: run with tsx from the build (a CLI, the quickstart's receiver), it
    // then imports the compiled modules beside it, and `import.meta.url` names the path it was started by.
    else if (name.endsWith('.ts')) copyIfChanged(from, to, st);
    else linkTo(from, to);
  }
  for (const name of readdirSync(outDir)) {
    if (names.has(name)) continue;
    const to = join(outDir, name);
    const st = lstatSync(to);
    // The build's output: x.js from x.ts that still exists; anything else is left over.
    const fromSource = name.endsWith('.js') && names.has(`${name.slice(0, -3)}.ts`);
    if (!fromSource || st.isSymbolicLink()) rmSync(to, { recursive: true, force: true });
  }
}

/** Builds the compiled tree of `root`: resolves with its directory, or undefined when esbuild failed. */
export async function buildTests(root) {
  const out = buildDirOf(root);
  mkdirSync(out, { recursive: true });
  let ok = true;
  try {
    await build({
      absWorkingDir: root,
      entryPoints: COMPILED_DIRS.flatMap((dir) => sourcesOf(root, dir)),
      outdir: out,
      outbase: '.',
      bundle: false,
      format: 'esm',
      platform: 'node',
      // The oldest Node.js `engines` allows; tsx targets the running one. keepNames as tsx: class and function names
      // stay what the source says (errors and the machines' actors are named by them).
      target: 'node20',
      keepNames: true,
      tsconfig: join(root, 'tsconfig.json'),
      logLevel: 'error',
    });
  } catch {
    ok = false; // esbuild has printed what failed
  }
  for (const name of readdirSync(root)) {
    if (LEFT_OUT.has(name)) continue;
    const from = join(root, name);
    if (COMPILED_DIRS.includes(name)) mirror(from, join(out, name));
    else linkTo(from, join(out, name));
  }
  return ok ? out : undefined;
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  const root = process.cwd();
  const out = await buildTests(root);
  if (!out) process.exit(1);
  console.log(`compiled into ${relative(root, out)}`);
}
