import { renderReport } from './bench-report.js';
import { newPlatformKey, startBenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { measureRawBaseline } from './raw-baseline.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';
import { benchWebhooks } from './webhook-bench.js';

/**
 * The webhook scenarios of `npm run bench` alone (`npm run bench:webhooks`): raw node:http baseline, fresh stores,
 * one service process, then delivery throughput and the hanging-receiver fairness check. BENCH_WEBHOOK_EVENTS sets
 * the burst (default 5000).
 */
const log = (line: string) => console.log(`[webhooks ${new Date().toISOString().slice(11, 19)}] ${line}`);
const raw = await measureRawBaseline({ clients: [1, 8, 32], durationMs: 3000, tally: createResponseTally(), log });
const stores = await startBenchStores();
const platformKey = newPlatformKey();
const service = await startBenchService(stores, platformKey);
const stop = async () => {
  await service.process.stop().catch(() => undefined);
  await stores.stop();
};
stopOnSignal(stop);
try {
  const r = await benchWebhooks({
    url: service.url,
    platformKey,
    databaseUrl: stores.databaseUrl,
    raw,
    events: Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000),
    readers: Number(process.env.BENCH_WEBHOOK_READERS ?? 8),
    log,
  });
  console.log('');
  console.log(renderReport(r.rows));
  console.log('');
  console.log(
    `${r.throughput.perSecond >= 500 ? 'met   ' : 'MISSED'}  webhook delivery throughput >= 500 events/s: ${r.throughput.perSecond.toFixed(0)}/s`,
  );
  console.log(
    `${r.fairness.p99Ms < 1000 ? 'met   ' : 'MISSED'}  another organization's delivery p99 < 1 s while one receiver hangs: ${r.fairness.p99Ms.toFixed(0)} ms`,
  );
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await stop();
}
