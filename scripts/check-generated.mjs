// Fails when src/gen is not what `buf generate` and build-proto-image.mjs make from proto/ (generated code is never
// hand-edited).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { buildProtoImage } from './build-proto-image.mjs';

const root = process.cwd();
const out = mkdtempSync(join(tmpdir(), 'gen-check-'));
const template = readFileSync(join(root, 'buf.gen.yaml'), 'utf8').replace('out: src/gen', `out: ${out}`);
const templatePath = join(out, 'buf.gen.yaml');
writeFileSync(templatePath, template);
execFileSync(join(root, 'node_modules/.bin/buf'), ['generate', '--template', templatePath], { stdio: 'inherit' });
buildProtoImage(root, join(out, 'scheduling.binpb'));

/** Lists files below a folder, relative to it. */
function list(dir) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(relative(dir, p));
    }
  };
  walk(dir);
  return files.filter((f) => f !== 'buf.gen.yaml').sort();
}
const expected = list(out);
const actual = list(join(root, 'src/gen'));
const stale = [];
for (const f of new Set([...expected, ...actual])) {
  const a = expected.includes(f) ? readFileSync(join(out, f)) : null;
  const b = actual.includes(f) ? readFileSync(join(root, 'src/gen', f)) : null;
  if (!a || !b || !a.equals(b)) stale.push(f);
}
rmSync(out, { recursive: true, force: true });
if (stale.length > 0) {
  console.error(`src/gen is stale (run \`npm run generate\`): ${stale.join(', ')}`);
  process.exit(1);
}
console.log('src/gen is up to date');
