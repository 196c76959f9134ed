import test from 'ava';
import { BookingV2 } from '../../src/contract/schemas/booking.js';
import { toBookingV2 } from '../../src/application/booking/booking-views.js';
import type { BookingRow } from '../../src/persistence/booking-repository.js';

const row: BookingRow = {
  id: 'bkg_1',
  platform_id: 'plt_1',
  organization_id: 'org_1',
  provider_id: 'prv_1',
  service_id: 'svc_1',
  resolution_id: 'res_1',
  option_id: 'opt_1',
  source: 'v2',
  status: 'confirmed',
  start_at: new Date('2026-03-02T14:00:00Z'),
  end_at: new Date('2026-03-02T14:50:00Z'),
  timezone: 'America/New_York',
  customer: { name: 'Ana', email: 'ana@example.com', timezone: null, lastname: 'Ruiz' },
  metadata: { ref: 'x' },
  notes: null,
  confirm_token: null,
  mode: 'test',
  rescheduled_from: null,
  rescheduled_to: null,
  cancelled_at: null,
  cancel_reason: null,
  confirmed_at: new Date('2026-03-01T00:00:00Z'),
  rescheduled_at: null,
  completed_at: null,
  created_at: new Date('2026-03-01T00:00:00Z'),
  updated_at: new Date('2026-03-01T00:00:00Z'),
  provider_name: 'Dr. A',
  provider_username: null,
  service_title: 'Intake',
  service_duration: 50,
};
const v1Row: BookingRow = {
  ...row,
  source: 'v1',
  status: 'cancelled',
  resolution_id: null,
  option_id: null,
  metadata: null,
  customer: { name: 'Bo', email: 'bo@example.com' },
  cancelled_at: new Date('2026-03-01T01:00:00Z'),
};

for (const [title, r] of [
  ['a confirmed v2 booking', row],
  ['a cancelled v1 booking', v1Row],
] as const) {
  test(`the v2 booking view of ${title} is the declared BookingV2 shape, field for field`, (t) => {
    const view = toBookingV2(r);
    const parsed = BookingV2.safeParse(view);
    t.true(parsed.success, parsed.success ? '' : parsed.error.message);
    const declared = new Set(Object.keys(BookingV2.shape));
    t.deepEqual(
      Object.keys(view).filter((k) => !declared.has(k)),
      [],
    );
    t.deepEqual(
      [...declared].filter((k) => !(k in view)),
      [],
    );
  });
}
