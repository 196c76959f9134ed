import test from 'ava';
import { loadConfig, MAX_SERVICE_PROCESSES } from '../../src/config/load-config.js';
import {
  WORKER_RESTART_FIRST_DELAY_MS,
  WORKER_RESTART_MAX_DELAY_MS,
  workerRestartDelayMs,
} from '../../src/service/worker-restart-delay.js';

test('a worker dying again and again is forked after doubling waits, up to 30 s, never in a tight loop', (t) => {
  const delays = Array.from({ length: 10 }, (_, i) => workerRestartDelayMs(i + 1));
  t.deepEqual(delays, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
  t.is(workerRestartDelayMs(0), WORKER_RESTART_FIRST_DELAY_MS);
  t.is(workerRestartDelayMs(1_000), WORKER_RESTART_MAX_DELAY_MS);
  // Over ten minutes of a worker dying at once, at most a couple of dozen forks.
  let spent = 0;
  let forks = 0;
  while (spent < 600_000) spent += workerRestartDelayMs(++forks);
  t.true(forks <= 30, `${forks} forks in ten minutes`);
});

test('SERVICE_PROCESSES: 1 by default; 1 to 64; anything else fails start-up naming it', (t) => {
  t.is(loadConfig({}).serviceProcesses, 1);
  t.is(loadConfig({ SERVICE_PROCESSES: '2' }).serviceProcesses, 2);
  t.is(loadConfig({ SERVICE_PROCESSES: String(MAX_SERVICE_PROCESSES) }).serviceProcesses, MAX_SERVICE_PROCESSES);
  for (const bad of ['0', '65', '-1', '1.5', 'two'])
    t.throws(() => loadConfig({ SERVICE_PROCESSES: bad }), { message: /SERVICE_PROCESSES/ }, bad);
});
