// ava's configuration (a file rather than package.json, for sortTestFiles).

/**
 * The test files that take longest (seconds of wall time, measured in a whole `npm test`; docs/testing.md), started
 * first so that no long file starts last while the other slot has nothing left to do. Any file may be missing here:
 * the rest run after these, in name order.
 */
const SLOW_FIRST = [
  'test/console/operator-pages.test.ts',
  'test/console/keys-and-webhooks.test.ts',
  'test/api/fuzz.test.ts',
  'test/console/data-pages.test.ts',
  'test/console/inspector.test.ts',
  'test/ops/claims-soak.test.ts',
];

/** Rank of `file` (an absolute path) in SLOW_FIRST; files not listed rank after them all. */
const rank = (file) => {
  const i = SLOW_FIRST.findIndex((f) => file.endsWith(`/${f}`));
  return i < 0 ? SLOW_FIRST.length : i;
};

export default {
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  files: ['test/**/*.test.ts'],
  timeout: '120s',
  concurrency: 2,
  workerThreads: false,
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b),
};
