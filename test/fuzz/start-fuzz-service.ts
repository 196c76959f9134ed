import type { LookupFunction } from 'node:net';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { FUZZ_CLOCK_START } from './fuzz-fixtures.js';

/** Name resolution for outbound URLs (webhooks, feeds) that resolves nothing: no fuzzed URL ever leads to a connection off this machine. */
const noDns: LookupFunction = (hostname, _options, callback) => {
  callback(Object.assign(new Error(`fuzz: no DNS for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
};

/**
 * Starts a whole service for a fuzz run: a fixed clock (openapi.json's examples are dated from it), no rate limit in the way (429
 * would hide everything behind it), webhooks allowed to the loopback receiver the fixtures name, and no DNS.
 */
export function startFuzzService(): Promise<TestService> {
  return startTestService({
    clock: createTestClock(FUZZ_CLOCK_START),
    env: { RATE_LIMIT_PER_MINUTE: '10000000', WEBHOOK_ALLOW_INSECURE_URLS: '1' },
    outboundLookup: noDns,
  });
}
