// Builds the descriptors of every file under proto/ (and the well-known types they import) into one
// google.protobuf.FileDescriptorSet, src/gen/scheduling.binpb, which server reflection serves
// (src/grpc/add-reflection.ts). Comments are kept (source info), so tools that describe a service show them.
// Usage: build-proto-image.mjs [out].
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Writes the descriptor set built from proto/ to `out`. */
export function buildProtoImage(root, out) {
  execFileSync(join(root, 'node_modules/.bin/buf'), ['build', '--as-file-descriptor-set', '-o', out], {
    cwd: root,
    stdio: 'inherit',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.cwd();
  buildProtoImage(root, process.argv[2] ?? join(root, 'src/gen/scheduling.binpb'));
}
