import test from 'ava';
import { bookingHasEnded } from '../../machines/booking-machine.js';
import { holdHasLapsed } from '../../machines/hold-machine.js';

test('a hold has lapsed from its expiry instant on, with ISO strings or Dates', (t) => {
  const expiresAt = '2026-03-02T10:02:00.000Z';
  t.false(holdHasLapsed(expiresAt, '2026-03-02T10:01:59.999Z'));
  t.true(holdHasLapsed(expiresAt, expiresAt));
  t.true(holdHasLapsed(new Date(expiresAt), new Date('2026-03-02T10:02:00.001Z')));
});

test('a booking has ended from its end instant on', (t) => {
  t.false(bookingHasEnded('2026-03-02T15:00:00.000Z', '2026-03-02T14:59:59.999Z'));
  t.true(bookingHasEnded('2026-03-02T15:00:00.000Z', '2026-03-02T15:00:00.000Z'));
});
