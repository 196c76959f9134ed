import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// In the compiled tree of a whole run the logger's JavaScript runs without tsx's loader (docs/testing.md).
const COMPILED = fileURLToPath(new URL('../../src/observability/create-logger.js', import.meta.url));
const LOGGER = existsSync(COMPILED)
  ? COMPILED
  : fileURLToPath(new URL('../../src/observability/create-logger.ts', import.meta.url));
const LOADER = existsSync(COMPILED) ? [] : ['--import', 'tsx'];

/** Runs a node process that logs `n` lines with the service's logger and then ends as `ending` says; its stdout lines. */
async function linesOf(n: number, ending: string): Promise<{ lines: string[]; code: number | null }> {
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOGGER)});
    const logger = createLogger({ level: 'info' });
    for (let i = 0; i < ${n}; i++) logger.info({ route: '/healthz', i }, 'request');
    ${ending}
  `;
  const child = spawn(process.execPath, [...LOADER, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { lines: out.split('\n').filter(Boolean), code };
}

test('the access log is buffered, yet every line is written when the process exits, also after an uncaught exception', async (t) => {
  const normal = await linesOf(500, 'process.exit(0);');
  t.is(normal.lines.length, 500);
  t.is(JSON.parse(normal.lines[499]!).i, 499);
  const crash = await linesOf(500, "setImmediate(() => { throw new Error('boom'); });");
  t.is(crash.code, 1);
  t.is(crash.lines.length, 500, 'lines logged before a crash are not lost');
});

test('a line waits at most about a second in the buffer', async (t) => {
  // One short line, far below the buffer size; the process stays alive 1.5 s, then is killed without an exit hook.
  const { lines } = await linesOf(1, "setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1500);");
  t.is(lines.length, 1);
});
