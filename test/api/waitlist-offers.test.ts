import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

let svc: TestService;
// Monday noon UTC; the provider works 09:00-17:00 New York time, so Tuesday 2026-03-03 has free slots.
const clock = createTestClock('2026-03-02T12:00:00Z');

test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
const db = () => svc.service.deps.db;
const events = async (orgId: string, type: string) =>
  (
    await db().query('SELECT data, mode FROM events WHERE organization_id = $1 AND type = $2 ORDER BY id', [
      orgId,
      type,
    ])
  ).rows;

/** Polls `read` (the workers run on their own) until `done` holds; fails after 15 s. */
async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An organization (offer TTL 120 s) with one provider, a booking on Tuesday and `entries` waiting entries. */
async function bookedWithWaitlist(name: string, entries: number) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 8)}`, { waitlistOfferTtlSeconds: 120 });
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const r = (
    await o.api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 1 },
      idem(),
    )
  ).body;
  const option = r.options[0];
  const booking = await o.api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { optionId: option.optionId, customer },
    idem(),
  );
  if (booking.status !== 200) throw new Error(JSON.stringify(booking.body));
  const ids: string[] = [];
  for (let i = 0; i < entries; i++) {
    const e = await o.api.post('/api/v2/waitlist', {
      serviceId: p.service.id,
      customer: { name: `Client ${i}`, email: `c${i}@example.com` },
      constraints: { languageCodes: { anyOf: ['en'] } },
    });
    if (e.status !== 200) throw new Error(JSON.stringify(e.body));
    ids.push(e.body.id);
    clock.advance(1000); // entries are offered oldest first
  }
  return { o, p, option, booking: booking.body, ids };
}

const entry = async (o: { api: any }, id: string) =>
  ((await o.api.get('/api/v2/waitlist?limit=500')).body.data as any[]).find((e) => e.id === id);

test.serial(
  'cancel with three entries waiting: the first is offered; it lapses: the second; confirm: booked',
  async (t) => {
    const { o, p, option, booking, ids } = await bookedWithWaitlist('offer-chain', 3);
    const [first, second, third] = ids as [string, string, string];
    t.is((await entry(o, first)).status, 'waiting');
    t.is((await entry(o, first)).offer, null);

    const cancelled = await o.api.post(`/api/v1/bookings/${booking.id}/cancel`, { reason: 'sick' });
    t.is(cancelled.status, 200, JSON.stringify(cancelled.body));

    // 1. The first entry is offered the freed slot: a resolution and a real hold on it, expiring with the offer.
    const offered = await eventually(
      () => entry(o, first),
      (e) => e.status === 'offered',
      'the first offer',
    );
    const expiresAt = new Date(clock().getTime() + 120_000).toISOString();
    t.like(offered, { offersMade: 1, offer: { slotStart: option.slot.start, providerId: p.provider.id, expiresAt } });
    t.is((await entry(o, second)).status, 'waiting');
    t.is((await entry(o, third)).status, 'waiting');
    const hold = await o.api.get(
      `/api/v2/resolutions/${offered.offer.resolutionId}/options/${offered.offer.optionId}/hold`,
    );
    t.like(hold.body, { holdId: offered.offer.holdId, status: 'active', expiresAt });
    const resolution = await o.api.get(`/api/v2/resolutions/${offered.offer.resolutionId}`);
    t.is(resolution.body.expiresAt, expiresAt);
    t.is(resolution.body.options[0].provider.id, p.provider.id);
    const [offerEvent] = await events(o.org.id, 'waitlist.offered');
    t.deepEqual(offerEvent.data, {
      entryId: first,
      resolutionId: offered.offer.resolutionId,
      holdId: offered.offer.holdId,
      optionId: offered.offer.optionId,
      providerId: p.provider.id,
      slotStart: option.slot.start,
      expiresAt,
    });
    t.is(offerEvent.mode, 'live');
    // The entry's actor is in Redis, offered, with its durable lapse timer: the inspector shows it.
    const actor = await o.api.get(`/api/v2/inspector/actors/waitlist_entry/${first}`);
    t.is(actor.status, 200, JSON.stringify(actor.body));
    t.is(actor.body.state, 'offered');
    t.true(JSON.stringify(actor.body.timers).includes('lapse'));

    // 2. The offer lapses: the first entry waits again, the slot goes to the second.
    clock.advance(120_000);
    const secondOffered = await eventually(
      () => entry(o, second),
      (e) => e.status === 'offered',
      'the second offer',
    );
    const lapsed = await entry(o, first);
    t.like(lapsed, { status: 'waiting', offer: null, offersMade: 1 });
    t.is(secondOffered.offer.slotStart, option.slot.start);
    t.not(secondOffered.offer.holdId, offered.offer.holdId);
    t.is((await entry(o, third)).status, 'waiting');
    t.is(
      (await o.api.get(`/api/v2/resolutions/${offered.offer.resolutionId}/options/${offered.offer.optionId}/hold`)).body
        .status,
      'expired',
    );

    // 3. The usual confirm with the offer's hold books the slot, and the entry.
    const confirmed = await o.api.post(
      `/api/v2/resolutions/${secondOffered.offer.resolutionId}/confirm`,
      { optionId: secondOffered.offer.optionId, holdId: secondOffered.offer.holdId, customer },
      idem(),
    );
    t.is(confirmed.status, 200, JSON.stringify(confirmed.body));
    const booked = await entry(o, second);
    t.like(booked, { status: 'booked', offersMade: 1, offer: { holdId: secondOffered.offer.holdId } });
    const [bookedEvent] = await events(o.org.id, 'waitlist.booked');
    t.deepEqual(bookedEvent.data, {
      entryId: second,
      resolutionId: secondOffered.offer.resolutionId,
      holdId: secondOffered.offer.holdId,
      bookingId: confirmed.body.id,
    });
    t.is((await o.api.get(`/api/v2/inspector/actors/waitlist_entry/${second}`)).body.state, 'booked');
    // Nothing more is offered: the slot is booked, the first entry let it lapse, the third never had it.
    t.is((await events(o.org.id, 'waitlist.offered')).length, 2);
    t.is((await entry(o, third)).status, 'waiting');
    t.is((await entry(o, first)).status, 'waiting');
  },
);

test.serial('cancelling an offered entry releases its hold and the slot goes to the next entry', async (t) => {
  const { o, booking, ids } = await bookedWithWaitlist('offer-cancel', 2);
  const [first, second] = ids as [string, string];
  await o.api.post(`/api/v1/bookings/${booking.id}/cancel`, {});
  const offered = await eventually(
    () => entry(o, first),
    (e) => e.status === 'offered',
    'the first offer',
  );
  const cancelled = await o.api.delete(`/api/v2/waitlist/${first}`);
  t.is(cancelled.status, 200);
  t.is(cancelled.body.status, 'cancelled');
  const next = await eventually(
    () => entry(o, second),
    (e) => e.status === 'offered',
    'the second offer',
  );
  t.is(next.offer.slotStart, offered.offer.slotStart);
  const hold = await o.api.get(
    `/api/v2/resolutions/${offered.offer.resolutionId}/options/${offered.offer.optionId}/hold`,
  );
  t.is(hold.body.status, 'released');
  // Cancelling again answers the same entry.
  t.deepEqual((await o.api.delete(`/api/v2/waitlist/${first}`)).body, cancelled.body);
});

test.serial('an entry whose constraints the provider fails is passed over', async (t) => {
  const { o, p, booking } = await bookedWithWaitlist('offer-constraints', 0);
  const french = await o.api.post('/api/v2/waitlist', {
    serviceId: p.service.id,
    customer: { name: 'Fr', email: 'fr@example.com' },
    constraints: { languageCodes: { anyOf: ['fr'] } },
  });
  clock.advance(1000);
  const english = await o.api.post('/api/v2/waitlist', {
    serviceId: p.service.id,
    customer: { name: 'En', email: 'en@example.com' },
  });
  await o.api.post(`/api/v1/bookings/${booking.id}/cancel`, {});
  await eventually(
    () => entry(o, english.body.id),
    (e) => e.status === 'offered',
    'the offer',
  );
  t.like(await entry(o, french.body.id), { status: 'waiting', offersMade: 0 });
});

test.serial('waitlistOfferTtlSeconds: default 900, 60..3600', async (t) => {
  const o = await newOrganization(svc, `ttl-${randomUUID().slice(0, 8)}`);
  t.is(o.org.settings.waitlistOfferTtlSeconds, 900);
  const bad = await o.platform.patch(`/api/v2/organizations/${o.org.id}`, {
    settings: { waitlistOfferTtlSeconds: 59 },
  });
  t.is(bad.status, 400);
  const ok = await o.platform.patch(`/api/v2/organizations/${o.org.id}`, {
    settings: { waitlistOfferTtlSeconds: 3600 },
  });
  t.is(ok.body.settings.waitlistOfferTtlSeconds, 3600);
});

test.serial(
  'a schedule added offers free slots to every waiting entry, oldest first, one each; provider data changed admits an entry',
  async (t) => {
    const o = await newOrganization(svc, `offer-schedule-${randomUUID().slice(0, 8)}`);
    const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] }, { schedule: null });
    const ids: string[] = [];
    for (const [i, languages] of [['en'], ['en'], ['fr']].entries()) {
      const e = await o.api.post('/api/v2/waitlist', {
        serviceId: p.service.id,
        customer: { name: `Client ${i}`, email: `c${i}@example.com` },
        constraints: { languageCodes: { anyOf: languages } },
      });
      ids.push(e.body.id);
      clock.advance(1000);
    }
    const [first, second, french] = ids as [string, string, string];
    const schedule = await o.api.post('/api/v2/calendar-connections', {
      providerId: p.provider.id,
      timezone: 'America/New_York',
      days: { tuesday: { enabled: true, slots: [{ start: '09:00', end: '17:00' }] } },
    });
    t.is(schedule.status, 200, JSON.stringify(schedule.body));
    const a = await eventually(
      () => entry(o, first),
      (e) => e.status === 'offered',
      'the first offer',
    );
    const b = await eventually(
      () => entry(o, second),
      (e) => e.status === 'offered',
      'the second offer',
    );
    t.not(a.offer.slotStart, b.offer.slotStart);
    t.like(await entry(o, french), { status: 'waiting', offersMade: 0 });
    // The provider now speaks French: the French entry is offered a slot the others do not hold.
    const patched = await o.platform.patch(`/api/v2/providers/${p.provider.id}`, { languageCodes: ['en', 'fr'] });
    t.is(patched.status, 200, JSON.stringify(patched.body));
    const c = await eventually(
      () => entry(o, french),
      (e) => e.status === 'offered',
      'the French offer',
    );
    t.is(new Set([a.offer.slotStart, b.offer.slotStart, c.offer.slotStart]).size, 3);
    t.is((await entry(o, first)).offersMade, 1, 'an offered entry is not offered again');
  },
);
