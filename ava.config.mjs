// ava's configuration (a file rather than package.json, for sortTestFiles).
import { rank } from './scripts/test-plan.mjs';

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
