import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createWaitlistOfferWorker } from '../../src/workers/waitlist-offer-worker.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// The offer worker is woken by the freeing transaction's commit (LISTEN/NOTIFY), not by its poll: with a poll of one
// minute, an offer follows a cancellation within a couple of seconds; without the listener it does not.
const clock = createTestClock('2026-03-02T12:00:00Z');
let api: TestService;

test.before(async () => {
  // No workers in the service: the test runs the one offer worker itself, with a poll too slow to matter.
  api = await startTestService({ clock, env: { SERVICE_ROLES: 'gateway,grpc' } });
});
test.after.always(async () => {
  await api?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com' };

/** An organization with a booking on Tuesday and one waiting entry; answers how to cancel it and read the entry. */
async function bookingWithWaitingEntry(name: string) {
  const o = await newOrganization(api, `${name}-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  const r = (
    await o.api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 1 },
      idem(),
    )
  ).body;
  const booking = (
    await o.api.post(
      `/api/v2/resolutions/${r.resolutionId}/confirm`,
      { optionId: r.options[0].optionId, customer },
      idem(),
    )
  ).body;
  const waiting = (
    await o.api.post('/api/v2/waitlist', { serviceId: p.service.id, customer: { name: 'W', email: 'w@example.com' } })
  ).body;
  const status = async () =>
    ((await o.api.get('/api/v2/waitlist')).body.data as any[]).find((e) => e.id === waiting.id).status as string;
  return { cancel: () => o.api.post(`/api/v1/bookings/${booking.id}/cancel`, {}), status };
}

/** Polls the entry for up to `ms`; answers how long it took to be offered, or undefined. */
async function offeredWithin(status: () => Promise<string>, ms: number): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if ((await status()) === 'offered') return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

test.serial('a cancellation wakes the offer worker at once; its minute-long poll is only the safety net', async (t) => {
  const worker = createWaitlistOfferWorker(api.service.deps, { pollMs: 60_000, log: () => undefined });
  worker.start();
  try {
    const { cancel, status } = await bookingWithWaitingEntry('wake');
    // The worker's first poll ran at start; give its listener a moment to be connected.
    await new Promise((r) => setTimeout(r, 500));
    t.is(await status(), 'waiting');
    t.is((await cancel()).status, 200);
    const took = await offeredWithin(status, 5_000);
    t.truthy(took, 'offered long before the next poll');
    t.log(`offered ${took} ms after the cancel's answer`);
  } finally {
    await worker.stop();
  }
});

test.serial('without the listener the same cancellation waits for the poll (the test above can fail)', async (t) => {
  const worker = createWaitlistOfferWorker(api.service.deps, {
    pollMs: 60_000,
    listen: false,
    log: () => undefined,
  });
  worker.start();
  try {
    const { cancel, status } = await bookingWithWaitingEntry('no-wake');
    await new Promise((r) => setTimeout(r, 500));
    t.is((await cancel()).status, 200);
    t.is(await offeredWithin(status, 2_000), undefined, 'not offered before the next poll');
    // A wake (as the listener gives) offers it.
    worker.wake();
    t.truthy(await offeredWithin(status, 5_000));
  } finally {
    await worker.stop();
  }
});
