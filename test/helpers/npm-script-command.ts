import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/**
 * The command of a `tsx <script>.ts` npm script of package.json (e.g. `keys`), with `node` as this Node binary and
 * tsx's loader as the script's runner. In the compiled tree of a whole run (scripts/build-tests.mjs) it runs the
 * script's compiled JavaScript without tsx, as `serviceCommand` does for `npm start`: tsx's hooks cost each CLI
 * process about a second of CPU (docs/testing.md).
 */
export function npmScriptCommand(name: string, root = ROOT): string[] {
  const script = String(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts[name] ?? '');
  const [runner, entry, ...args] = script.split(/\s+/).filter(Boolean);
  if (runner !== 'tsx' || !entry?.endsWith('.ts'))
    throw new Error(`npm script ${name} must be tsx <file>.ts: ${script}`);
  const compiled = entry.replace(/\.ts$/, '.js');
  if (existsSync(join(root, compiled))) return [process.execPath, join(root, compiled), ...args];
  return [process.execPath, '--import', 'tsx', join(root, entry), ...args];
}
