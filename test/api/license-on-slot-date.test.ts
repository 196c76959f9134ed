import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { encodeSlotId } from '../../src/domain/availability/slot-id.js';

// CONTRACT part 8: a slot is offered only when the provider's matching licence is valid on the slot's local date.

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock, env: { RESOLUTION_TTL_SECONDS: '300' } });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const license = (expiresAt: string) => ({
  licenseTypeCode: 'psy',
  regionCode: 'US-NY',
  status: 'active',
  expiresAt,
  verifiedAt: '2026-01-01T00:00:00Z',
});
const hour = { enabled: true, slots: [{ start: '09:00', end: '10:00' }] };
// One 09:00 slot on Mondays, Wednesdays and Fridays.
const monWedFri = { days: { monday: hour, wednesday: hour, friday: hour } };
// One 09:00 slot on Wednesdays and Fridays: nothing on the range's first two days.
const wedFri = { days: { wednesday: hour, friday: hour } };
/** The New York date of an instant (EST, UTC-5, all through these dates). */
const nyDate = (iso: string) => new Date(Date.parse(iso) - 5 * 3_600_000).toISOString().slice(0, 10);

test('a licence ending on day 3 of a 14-day range keeps the slots up to day 3; one left with none is LICENSE_EXPIRED; slots within 30 days of expiry warn', async (t) => {
  const o = await newOrganization(svc, 'lic-in-range');
  const cut = await providerWithService(
    o,
    { externalId: 'cut', licenseRecords: [license('2026-03-04')] },
    {
      schedule: monWedFri,
    },
  );
  // Its licence ends on day 2; its first slot is on day 3.
  const gone = await providerWithService(
    o,
    { externalId: 'gone', licenseRecords: [license('2026-03-03')] },
    {
      schedule: wedFri,
    },
  );
  // Valid through 5 April: slots from 6 March on are within 30 days of it.
  const soon = await providerWithService(
    o,
    { externalId: 'soon', licenseRecords: [license('2026-04-05')] },
    {
      schedule: monWedFri,
    },
  );
  const r = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: cut.service.id,
      constraints: { licenseRegionCodes: { anyOf: ['US-NY'] } },
      dateRange: { from: '2026-03-02', to: '2026-03-16' },
      maxOptionsPerProvider: 10,
    },
    idem(),
  );
  t.is(r.status, 200, JSON.stringify(r.body));
  // A provider's options, earliest first.
  const of = (id: string) =>
    r.body.options
      .filter((x: any) => x.provider.id === id)
      .sort((a: any, b: any) => (a.slot.start < b.slot.start ? -1 : 1));
  t.deepEqual(
    of(cut.provider.id).map((x: any) => nyDate(x.slot.start)),
    ['2026-03-02', '2026-03-04'],
    'the Monday and Wednesday slots up to the expiry, none of the five after it',
  );
  t.true(of(cut.provider.id).every((x: any) => x.warnings.some((w: any) => w.code === 'LICENSE_EXPIRING_SOON')));
  t.deepEqual(of(gone.provider.id), []);
  t.deepEqual(
    of(soon.provider.id).map((x: any) => [nyDate(x.slot.start), x.warnings.map((w: any) => w.code)]),
    [
      ['2026-03-02', []],
      ['2026-03-04', []],
      ['2026-03-06', ['LICENSE_EXPIRING_SOON']],
      ['2026-03-09', ['LICENSE_EXPIRING_SOON']],
      ['2026-03-11', ['LICENSE_EXPIRING_SOON']],
      ['2026-03-13', ['LICENSE_EXPIRING_SOON']],
    ],
  );
  t.true(r.body.warnings.some((w: any) => w.code === 'LICENSE_EXPIRING_SOON' && w.providerId === soon.provider.id));
  t.deepEqual(r.body.exclusionSummary, { LICENSE_EXPIRED: 1 });
  t.like(r.body.summary, { providersScanned: 3, eligibleProviders: 2, providersWithVerifiedAvailability: 2 });

  const cands = await o.api.get(`/api/v2/resolutions/${r.body.resolutionId}/candidates?exclusionCode=LICENSE_EXPIRED`);
  t.is(cands.status, 200);
  t.is(cands.body.candidates.length, 1);
  const c = cands.body.candidates[0];
  t.is(c.providerId, gone.provider.id);
  t.is(c.eligibilityStatus, 'excluded');
  t.like(c.exclusions[0], { code: 'LICENSE_EXPIRED', field: 'licenseRegionCodes', status: 'failed' });
  t.regex(c.exclusions[0].detail, /2026-03-03/);

  // The last slot before the expiry is held like any other.
  const last = of(cut.provider.id)[1];
  const held = await o.api.post(`/api/v2/resolutions/${r.body.resolutionId}/options/${last.optionId}/hold`, {
    ttlSeconds: 60,
  });
  t.is(held.status, 200, JSON.stringify(held.body));
});

test('a licence valid today but ending before the range starts is LICENSE_EXPIRED, its date in the detail', async (t) => {
  const o = await newOrganization(svc, 'lic-before-range');
  const early = await providerWithService(o, { externalId: 'early', licenseRecords: [license('2026-03-05')] });
  const fine = await providerWithService(o, { externalId: 'fine', licenseRecords: [license('2027-01-01')] });
  const r = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: early.service.id,
      constraints: { licenseRegionCodes: { anyOf: ['US-NY'] } },
      dateRange: { from: '2026-03-09', to: '2026-03-12' },
    },
    idem(),
  );
  t.is(r.status, 200, JSON.stringify(r.body));
  t.true(r.body.options.length > 0);
  t.true(r.body.options.every((x: any) => x.provider.id === fine.provider.id));
  t.deepEqual(r.body.exclusionSummary, { LICENSE_EXPIRED: 1 });
  t.like(r.body.summary, { eligibleProviders: 1 });

  const cands = await o.api.get(`/api/v2/resolutions/${r.body.resolutionId}/candidates`);
  const c = cands.body.candidates.find((x: any) => x.providerId === early.provider.id);
  t.is(c.eligibilityStatus, 'excluded');
  t.like(c.exclusions[0], { code: 'LICENSE_EXPIRED', status: 'failed', required: ['US-NY'], actual: ['US-NY'] });
  t.is(c.exclusions[0].detail, 'The license for US-NY expires on 2026-03-05, before the requested dates.');

  // The same provider over dates its licence covers is offered again.
  const within = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: early.service.id,
      constraints: { licenseRegionCodes: { anyOf: ['US-NY'] } },
      dateRange: { from: '2026-03-02', to: '2026-03-12' },
    },
    idem(),
  );
  t.true(within.body.options.some((x: any) => x.provider.id === early.provider.id));
  t.true(
    within.body.options
      .filter((x: any) => x.provider.id === early.provider.id)
      .every((x: any) => nyDate(x.slot.start) <= '2026-03-05'),
  );
});

test('v1: slots and bookings stop at the last date the provider’s active licences cover; a provider without licences is unchanged', async (t) => {
  const o = await newOrganization(svc, 'lic-v1');
  // v1 asks for no licence region: the active records count, whatever their region.
  const p = await providerWithService(o, {
    externalId: 'v1cut',
    licenseRecords: [license('2026-03-04'), { ...license('2026-03-01'), regionCode: 'US-NJ' }],
  });
  const free = await providerWithService(o, { externalId: 'v1free' });
  const slots = (provider: typeof p, date: string) =>
    o.api.get(`/api/v1/slots?providerId=${provider.provider.id}&eventTypeId=${provider.service.id}&date=${date}`);
  t.is((await slots(p, '2026-03-04')).body.total, 8, '09:00 to 16:00 on the last covered date');
  t.deepEqual((await slots(p, '2026-03-05')).body, { slots: [], total: 0 });
  t.is((await slots(free, '2026-03-05')).body.total, 8);

  const book = (start: string) =>
    o.api.post('/api/v1/bookings', {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: encodeSlotId({ providerId: p.provider.id, serviceId: p.service.id, start: Date.parse(start) }),
      attendee: { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' },
    });
  const after = await book('2026-03-05T15:00:00Z');
  t.is(after.status, 422, JSON.stringify(after.body));
  t.is(after.body.error.code, 'SLOT_OUTSIDE_AVAILABILITY');
  const made = await book('2026-03-04T15:00:00Z');
  t.is(made.status, 200, JSON.stringify(made.body));
  const moved = await o.api.post(`/api/v1/bookings/${made.body.data.id}/reschedule`, {
    date: '2026-03-05',
    time: '10:00',
  });
  t.is(moved.status, 422, JSON.stringify(moved.body));
  t.is(moved.body.error.code, 'SLOT_OUTSIDE_AVAILABILITY');
});
