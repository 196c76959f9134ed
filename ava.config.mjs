// ava's configuration (a file rather than package.json, for sortTestFiles).

/**
 * The test files that took longest in a whole `npm test` (45 to 140 s each on the loaded 2-core machine; docs/testing.md),
 * longest first. They start first, so that no long file starts last while the other slot has nothing left to do, and
 * the waits of the multi-process tests overlap other files' work. A file missing here only runs later: the rest
 * follow in name order.
 */
const SLOW_FIRST = [
  'test/ops/cli.test.ts',
  'test/ops/crash-recovery.test.ts',
  'test/console/operator-pages.test.ts',
  'test/domain/license-screening.test.ts',
  'test/console/keys-and-webhooks.test.ts',
  'test/ops/service-processes.test.ts',
  'test/ops/waitlist-offers-concurrency.test.ts',
  'test/security/stream-limits.test.ts',
  'test/console/data-pages.test.ts',
  'test/ops/webhook-kill.test.ts',
  'test/ops/claims-soak.test.ts',
  'test/api/fuzz.test.ts',
  'test/security/idempotency-crash.test.ts',
  'test/console/inspector.test.ts',
  'test/ops/redis-cluster.test.ts',
  'test/admission/overload.test.ts',
  'test/security/metrics-scrape.test.ts',
  'test/ops/audit-two-processes.test.ts',
  'test/ops/start-stop.test.ts',
  'test/ops/rolling-restart.test.ts',
  'test/ops/store-hang.test.ts',
  'test/ops/no-double-booking.test.ts',
  'test/ops/key-revocation.test.ts',
  'test/ops/store-supervision.test.ts',
  'test/security/metrics-access.test.ts',
  'test/ops/workers-resume.test.ts',
];

/** Rank of `file` (an absolute path, `.ts` or its compiled `.js`) in SLOW_FIRST; files not listed rank after them all. */
const rank = (file) => {
  const source = file.replace(/\.js$/, '.ts');
  const i = SLOW_FIRST.findIndex((f) => source.endsWith(`/${f}`));
  return i < 0 ? SLOW_FIRST.length : i;
};

/**
 * A whole run (scripts/run-tests.mjs) runs the compiled tree (.cache/build, scripts/build-tests.mjs) with TEST_COMPILED=1:
 * the test files' JavaScript, loaded without tsx. Otherwise ava runs the TypeScript through tsx.
 */
const compiled = process.env.TEST_COMPILED === '1';

/** scripts/run-tests.mjs sets TEST_TIMING_FILE: each worker then records its file's wall and CPU time there. */
const timing = process.env.TEST_TIMING_FILE
  ? [`--import=${new URL('./scripts/test-file-timing.mjs', import.meta.url).pathname}`]
  : [];

export default {
  ...(compiled
    ? { extensions: ['js'], files: ['test/**/*.test.js'], nodeArguments: timing }
    : { extensions: { ts: 'module' }, nodeArguments: ['--import=tsx', ...timing], files: ['test/**/*.test.ts'] }),
  timeout: '120s',
  // Three at a time: the files wait on their services, stores and browsers more than they use the two cores (main pass
  // 364 s against 407 s with two, the same CPU; docs/testing.md).
  concurrency: 3,
  workerThreads: false,
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b),
};
