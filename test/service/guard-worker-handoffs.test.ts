import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// In the compiled tree of a whole run the module's JavaScript runs without tsx's loader (docs/testing.md).
const COMPILED = fileURLToPath(new URL('../../src/service/guard-worker-handoffs.js', import.meta.url));
const MODULE = existsSync(COMPILED)
  ? COMPILED
  : fileURLToPath(new URL('../../src/service/guard-worker-handoffs.ts', import.meta.url));
const LOADER = existsSync(COMPILED) ? [] : ['--import', 'tsx'];

/**
 * Runs a node:cluster primary that forks one idle worker, guards it (or not), kills it with SIGKILL and, before its
 * event loop can read the death, writes a message to it: what it printed and how it ended.
 */
async function writeToDeadWorker(guarded: boolean): Promise<{ out: string; code: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'handoffs-'));
  try {
    const worker = join(dir, 'worker.mjs');
    writeFileSync(worker, 'setInterval(() => {}, 1000);\n');
    const primary = join(dir, 'primary.mjs');
    writeFileSync(
      primary,
      `import cluster from 'node:cluster';
      const { guardWorkerHandoffs } = await import(${JSON.stringify(MODULE)});
      cluster.setupPrimary({ exec: ${JSON.stringify(worker)}, execArgv: [] });
      const w = cluster.fork();
      if (${guarded}) guardWorkerHandoffs(w, (err) => console.log('channel error', err.code));
      w.on('online', () => {
        process.kill(w.process.pid, 'SIGKILL');
        // Busy: the primary cannot read the death before it writes.
        const t = Date.now();
        while (Date.now() - t < 300);
        w.process.send({ hello: 1 });
        setTimeout(() => { console.log('primary alive'); process.exit(0); }, 500);
      });
      `,
    );
    const child = spawn(process.execPath, [...LOADER, primary], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { out, code };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a write to a worker that died before the primary read its death is reported, not thrown in the primary', async (t) => {
  const guarded = await writeToDeadWorker(true);
  t.is(guarded.code, 0, guarded.out);
  t.regex(guarded.out, /channel error EPIPE/);
  t.regex(guarded.out, /primary alive/);
  // Without the guard the same write ends the primary (what the service's primary did before).
  const bare = await writeToDeadWorker(false);
  t.not(bare.code, 0, bare.out);
  t.regex(bare.out, /EPIPE/);
  t.notRegex(bare.out, /primary alive/);
});
