import test from 'ava';
import { subtractIntervals } from '../../../src/domain/availability/subtract-intervals.js';

const iv = (start: number, end: number) => ({ start, end });

test('busy time gone from the next copy: whole intervals, parts of intervals, clipped', (t) => {
  // Unchanged: nothing freed.
  t.deepEqual(subtractIntervals([iv(10, 20), iv(30, 40)], [iv(10, 20), iv(30, 40)]), []);
  // One event removed.
  t.deepEqual(subtractIntervals([iv(10, 20), iv(30, 40)], [iv(30, 40)]), [iv(10, 20)]);
  // An event shortened at both ends, another moved later (its old time frees, the new one is busy).
  t.deepEqual(subtractIntervals([iv(10, 20), iv(30, 40)], [iv(12, 18), iv(35, 50)]), [
    iv(10, 12),
    iv(18, 20),
    iv(30, 35),
  ]);
  // One long event split into two by the next copy; a covering event frees nothing.
  t.deepEqual(subtractIntervals([iv(0, 100)], [iv(0, 40), iv(60, 100)]), [iv(40, 60)]);
  t.deepEqual(subtractIntervals([iv(10, 20), iv(25, 30)], [iv(0, 100)]), []);
  // Clipped to the window asked for (the past is never offered).
  t.deepEqual(subtractIntervals([iv(0, 10), iv(20, 40)], [], 5, 30), [iv(5, 10), iv(20, 30)]);
  t.deepEqual(subtractIntervals([iv(0, 10)], [], 10, 30), []);
});
