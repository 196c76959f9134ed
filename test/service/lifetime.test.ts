import test from 'ava';
import { createLifetime } from '../../src/service/lifetime.js';

test('stop tells the drain listeners first, then runs the stops last registered first, each after the previous', async (t) => {
  const seen: string[] = [];
  const lifetime = createLifetime(() => t.fail('no stop failed'));
  lifetime.defer(() => {
    seen.push('stores');
  });
  lifetime.defer(async () => {
    await new Promise((r) => setTimeout(r, 20));
    seen.push('grpc');
  });
  lifetime.defer(() => {
    seen.push(`gateway (draining: ${String(lifetime.draining)})`);
  });
  lifetime.onDrain(() => seen.push('health NOT_SERVING'));
  t.false(lifetime.draining);
  await lifetime.stop();
  t.deepEqual(seen, ['health NOT_SERVING', 'gateway (draining: true)', 'grpc', 'stores']);
});

test('a failing stop, thrown or rejected, is logged and the next stop still runs', async (t) => {
  const logged: unknown[] = [];
  const seen: string[] = [];
  const lifetime = createLifetime((msg, extra) => logged.push([msg, extra]));
  lifetime.defer(() => {
    seen.push('first');
  });
  lifetime.defer(() => Promise.reject(new Error('close failed')));
  lifetime.defer(() => {
    throw new Error('threw');
  });
  await lifetime.stop();
  t.deepEqual(seen, ['first']);
  t.deepEqual(logged, [
    ['shutdown step failed', { error: 'Error: threw' }],
    ['shutdown step failed', { error: 'Error: close failed' }],
  ]);
});

test('a second stop waits for the first instead of running the stops again', async (t) => {
  let runs = 0;
  const lifetime = createLifetime(() => t.fail('no stop failed'));
  lifetime.defer(async () => {
    await new Promise((r) => setTimeout(r, 10));
    runs++;
  });
  await Promise.all([lifetime.stop(), lifetime.stop()]);
  await lifetime.stop();
  t.is(runs, 1);
});
