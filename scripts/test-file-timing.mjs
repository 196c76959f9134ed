// Loaded (`--import`) into every ava worker of a run when TEST_TIMING_FILE is set: when the worker exits it appends one
// JSON line to that file with its test file, its wall time, when it ended and its CPU time, its own and that of the
// child processes it waited for (service processes, redis-server, Chromium), so scripts/run-tests.mjs can print where a
// run's time went.
import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const out = process.env.TEST_TIMING_FILE;
if (out) {
  // ava's worker keeps the file it runs in this module (a CommonJS singleton, so the same instance ava uses).
  const options = createRequire(import.meta.url)(join(process.cwd(), 'node_modules/ava/lib/worker/options.cjs'));
  process.on('exit', () => {
    let file;
    try {
      file = options.get().file;
    } catch {
      return;
    }
    // /proc/self/stat after the command's closing parenthesis: utime, stime, cutime, cstime are fields 14-17 (ticks).
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    const tick = (i) => Number(fields[i - 3]) / 100;
    const line = {
      file: file.startsWith('file:') ? new URL(file).pathname : file,
      wall: (performance.now() / 1000).toFixed(2),
      cpu: (tick(14) + tick(15)).toFixed(2),
      children: (tick(16) + tick(17)).toFixed(2),
      ended: Date.now(),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
