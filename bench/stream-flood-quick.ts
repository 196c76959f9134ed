import { measurementRow, renderReport } from './bench-report.js';
import { newPlatformKey, startBenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { formatLoad, machineInfo } from './machine-info.js';
import { measureRawBaseline } from './raw-baseline.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';
import { benchStreamFlood } from './stream-flood-bench.js';

/**
 * The stream-flood scenario of `npm run bench` alone (`npm run bench:streams`): a raw node:http baseline, fresh stores,
 * one service process (the `npm start` command, default stream limits), then 8 readers of GET /api/v2/resolutions/:id
 * in alternating 10 s windows without and with one key's inspector stream attempts, one per 60 ms (1,000 in all, about
 * 2 minutes). BENCH_STREAM_ATTEMPTS, BENCH_STREAM_GAP_MS and BENCH_STREAM_READERS change it.
 */
const log = (line: string) => console.log(`[streams ${new Date().toISOString().slice(11, 19)}] ${line}`);
const machine = machineInfo();
console.log(
  `machine: ${machine.cpuCount} x ${machine.cpuModel}; load average ${formatLoad(machine.loadAverage)} (1/5/15 min); node ${machine.node}`,
);
const raw = await measureRawBaseline({ clients: [1, 8], durationMs: 3000, tally: createResponseTally(), log });
const stores = await startBenchStores();
const platformKey = newPlatformKey();
const service = await startBenchService(stores, platformKey);
const stop = async () => {
  await service.process.stop().catch(() => undefined);
  await stores.stop();
};
stopOnSignal(stop);
try {
  const r = await benchStreamFlood({
    url: service.url,
    platformKey,
    raw,
    attempts: Number(process.env.BENCH_STREAM_ATTEMPTS ?? 1000),
    readers: Number(process.env.BENCH_STREAM_READERS ?? 8),
    gapMs: Number(process.env.BENCH_STREAM_GAP_MS ?? 60),
    log,
  });
  console.log('');
  console.log(
    renderReport([...[...raw.byClients.values()].map((m) => measurementRow(raw, 'raw baseline', m)), ...r.rows]),
  );
  console.log('');
  console.log(
    `${r.p99Ratio <= 1.5 ? 'met   ' : 'MISSED'}  readers' p99 while one key floods inspector streams within 1.5x of without: ${r.flooded.latency.p99.toFixed(1)} ms vs ${r.quiet.latency.p99.toFixed(1)} ms (${r.p99Ratio.toFixed(2)}x)`,
  );
  console.log(
    `machine: load average at start ${formatLoad(machine.loadAverage)}, at end ${formatLoad(machineInfo().loadAverage)} (1/5/15 min)`,
  );
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await stop();
}
