import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const RESULTS_DIR = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', 'bench-results');

/** Writes a run's raw results as JSON to bench-results/<timestamp>.json (gitignored); answers the file's path. */
export function writeResultsFile(results: unknown, startedAt: Date): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  // Maps (the raw baseline by clients) are written as plain objects.
  writeFileSync(file, `${JSON.stringify(results, (_k, v) => (v instanceof Map ? Object.fromEntries(v) : v), 2)}\n`);
  return file;
}
