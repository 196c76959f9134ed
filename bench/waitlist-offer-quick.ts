import { renderReport } from './bench-report.js';
import { newPlatformKey, startBenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { measureRawBaseline } from './raw-baseline.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';
import { benchWaitlistOffer } from './waitlist-offer-bench.js';

/**
 * The waitlist offer row of `npm run bench` alone (`npx tsx bench/waitlist-offer-quick.ts`): a raw node:http baseline,
 * fresh stores, one service process, then BENCH_WAITLIST_ROUNDS (default 50) cancels that each trigger an offer, timed
 * from the cancel's answer to `waitlist.offered` delivered to a local webhook receiver (benchWaitlistOffer).
 */
const log = (line: string) => console.log(`[waitlist ${new Date().toISOString().slice(11, 19)}] ${line}`);
const raw = await measureRawBaseline({ clients: [1], durationMs: 3000, tally: createResponseTally(), log });
const stores = await startBenchStores();
const platformKey = newPlatformKey();
const service = await startBenchService(stores, platformKey);
const stop = async () => {
  await service.process.stop().catch(() => undefined);
  await stores.stop();
};
stopOnSignal(stop);
try {
  const r = await benchWaitlistOffer({
    url: service.url,
    platformKey,
    databaseUrl: stores.databaseUrl,
    raw,
    rounds: Number(process.env.BENCH_WAITLIST_ROUNDS ?? 50),
    log,
  });
  console.log('');
  console.log(renderReport(r.rows));
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await stop();
}
