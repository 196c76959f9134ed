// `buf breaking`: the proto files must not break what callers of the previous commit built against (WIRE_JSON rules of
// buf.yaml). The baseline is HEAD while proto/ has uncommitted changes, else the commit before HEAD; a clone without
// that history has nothing to compare with and says so.
import { execFileSync } from 'node:child_process';

const git = (...args) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
let ref;
try {
  ref = git('status', '--porcelain', '--', 'proto')
    ? 'HEAD'
    : (git('rev-parse', '--verify', '--quiet', 'HEAD~1'), 'HEAD~1');
} catch {
  console.log('buf breaking: no previous commit in this clone; nothing to compare with');
  process.exit(0);
}
try {
  execFileSync('node_modules/.bin/buf', ['breaking', '--against', `.git#ref=${ref}`], { stdio: 'inherit' });
} catch {
  console.error(`buf breaking: proto/ breaks callers of ${ref} (see above); keep field numbers, names and types`);
  process.exit(1);
}
console.log(`buf breaking: no breaking change against ${ref}`);
