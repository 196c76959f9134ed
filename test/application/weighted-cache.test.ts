import test from 'ava';
import { createWeightedCache } from '../../src/application/resolution/weighted-cache.js';

const sized = (n: number) => ({ items: new Array<number>(n).fill(0) });
const cacheOf = (maxEntries: number, maxWeight: number) =>
  createWeightedCache<{ items: number[] }>({ maxEntries, maxWeight, weightOf: (v) => v.items.length });
const settle = () => new Promise((r) => setImmediate(r));

test('loaded values count against the weight budget; the least recently used leave first', async (t) => {
  const c = cacheOf(10, 5);
  c.set('a', Promise.resolve(sized(3)));
  c.set('b', Promise.resolve(sized(2)));
  await settle();
  t.is(c.weight, 5);
  t.truthy(c.get('a'), 'a read: now the most recently used');
  c.set('c', Promise.resolve(sized(2)));
  await settle();
  t.is(c.get('b'), undefined, 'b was the least recently used');
  t.truthy(c.get('a'));
  t.truthy(c.get('c'));
  t.is(c.weight, 5);
});

test('a value above the budget is kept until another one is loaded', async (t) => {
  const c = cacheOf(10, 2);
  c.set('big', Promise.resolve(sized(4)));
  await settle();
  t.truthy(c.get('big'));
  t.is(c.weight, 4);
  c.set('small', Promise.resolve(sized(1)));
  await settle();
  t.is(c.get('big'), undefined);
  t.is(c.weight, 1);
});

test('the entry count is bounded too, and a failed load leaves the cache', async (t) => {
  const c = cacheOf(2, 1000);
  c.set('a', Promise.resolve(sized(1)));
  c.set('b', Promise.resolve(sized(1)));
  c.set('c', Promise.resolve(sized(1)));
  t.is(c.size, 2);
  t.is(c.get('a'), undefined);
  const failing = Promise.reject(new Error('load failed'));
  failing.catch(() => undefined);
  c.set('d', failing);
  await settle();
  t.is(c.get('d'), undefined);
  t.is(c.weight, 1, 'only c is left and weighed (b was evicted by d)');
});

test('replacing a key replaces its weight', async (t) => {
  const c = cacheOf(10, 100);
  c.set('a', Promise.resolve(sized(7)));
  await settle();
  c.set('a', Promise.resolve(sized(2)));
  await settle();
  t.is(c.weight, 2);
  t.is(c.size, 1);
});

test('with several limits (estimated bytes and a count), each holds', async (t) => {
  const c = createWeightedCache<{ items: number[]; bytes: number }>({
    maxEntries: 10,
    limits: [
      { max: 1000, weightOf: (v) => v.bytes },
      { max: 5, weightOf: (v) => v.items.length },
    ],
  });
  c.set('a', Promise.resolve({ items: [1], bytes: 600 }));
  c.set('b', Promise.resolve({ items: [1], bytes: 300 }));
  await settle();
  t.deepEqual(c.weights, [900, 2]);
  c.set('c', Promise.resolve({ items: [1], bytes: 200 }));
  await settle();
  t.is(c.get('a'), undefined, 'the byte budget dropped the least recently used');
  t.deepEqual(c.weights, [500, 2]);
  c.set('d', Promise.resolve({ items: [1, 2, 3, 4], bytes: 10 }));
  await settle();
  t.is(c.get('b'), undefined, 'the count budget dropped the next one');
  t.deepEqual(c.weights, [210, 5]);
});
