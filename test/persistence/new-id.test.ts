import test from 'ava';
import { idTimeBound, newId, randomHex } from '../../src/persistence/new-id.js';

test('ids are unique and sort in creation order, within one millisecond and across refills of the random pool', (t) => {
  const ids = Array.from({ length: 20_000 }, () => newId('x', 1_700_000_000_000));
  t.is(new Set(ids).size, ids.length);
  t.deepEqual([...ids].sort(), ids);
  t.true(
    ids.every((id) => /^x_[0-9a-hjkmnp-tv-z]{26}$/.test(id)),
    ids[0],
  );
  // The random tails differ too (the sequence alone does not make them unique).
  t.is(new Set(ids.map((id) => id.slice(-12))).size, ids.length);
});

test('randomHex gives fresh random bytes each time', (t) => {
  const values = Array.from({ length: 5000 }, () => randomHex(8));
  t.is(new Set(values).size, values.length);
  t.true(values.every((v) => /^[0-9a-f]{16}$/.test(v)));
});

test('idTimeBound splits ids by creation time: ids made before it sort below, ids made at or after it do not', (t) => {
  const at = 2_000_000_000_000;
  const before = Array.from({ length: 50 }, () => newId('evt', at - 1));
  const after = [
    ...Array.from({ length: 50 }, () => newId('evt', at)),
    newId('evt', at + 1),
    newId('evt', at + 86_400_000),
  ];
  const bound = idTimeBound('evt', at);
  t.true(
    before.every((id) => id < bound),
    `${before[before.length - 1]} < ${bound}`,
  );
  t.true(
    after.every((id) => id >= bound),
    `${after[0]} >= ${bound}`,
  );
});
