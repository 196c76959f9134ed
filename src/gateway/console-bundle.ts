import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** One file the console serves: its bytes, content type and a strong ETag. */
export interface ConsoleAsset {
  body: Buffer;
  type: string;
  etag: string;
}

const CONSOLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'console');
const require = createRequire(import.meta.url);

/** Vendor files served as published (not bundled): the API reference viewer. */
const VENDOR: Record<string, string> = {
  'swagger-ui-bundle.js': 'swagger-ui-dist/swagger-ui-bundle.js',
  'swagger-ui.css': 'swagger-ui-dist/swagger-ui.css',
};

function typeOf(name: string): string {
  if (name.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (name.endsWith('.css')) return 'text/css; charset=utf-8';
  return 'application/octet-stream';
}

function asset(body: Buffer | Uint8Array, name: string): ConsoleAsset {
  const buf = Buffer.from(body);
  return {
    body: buf,
    type: typeOf(name),
    etag: `"${createHash('sha256').update(buf).digest('base64url').slice(0, 27)}"`,
  };
}

/**
 * Bundles the console's TypeScript (src/console) with esbuild into ES modules held in memory: `main.js`,
 * `api-reference.js` with its `api-reference.css`, `console.css` and split chunks (Graphviz and the chart library load only on the pages that
 * draw). Built once per process, on the first request for the console.
 */
export async function buildConsoleAssets(): Promise<Map<string, ConsoleAsset>> {
  const result = await build({
    entryPoints: {
      main: join(CONSOLE_DIR, 'main.ts'),
      'api-reference': join(CONSOLE_DIR, 'api-reference.ts'),
      console: join(CONSOLE_DIR, 'console.css'),
    },
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    outdir: '/console-assets',
    chunkNames: 'chunk-[hash]',
    logLevel: 'silent',
    legalComments: 'none',
  });
  const assets = new Map<string, ConsoleAsset>();
  for (const file of result.outputFiles) assets.set(basename(file.path), asset(file.contents, file.path));
  for (const [name, spec] of Object.entries(VENDOR))
    assets.set(`vendor/${name}`, asset(await readFile(require.resolve(spec)), name));
  return assets;
}
