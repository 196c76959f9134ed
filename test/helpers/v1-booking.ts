import { BookingStatus, BookingV2_Source, type BookingV2 } from '../../src/gen/scheduling/v1/resources.js';

/**
 * A booking made on the v1 direct path, as the booking RPCs answer it (pending, with its e-mailed confirmation link):
 * the input of the tests of the v1 REST forms, which render it as v1 JSON.
 */
export const v1Booking: BookingV2 = {
  id: 'bkg_1',
  organizationId: 'org_1',
  bookingStatus: BookingStatus.BOOKING_STATUS_PENDING,
  provider: { id: 'prv_1', displayName: 'Dr. Ada', username: 'ada' },
  service: { id: 'svc_1', displayName: 'Intake', durationMinutes: 60 },
  customer: { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' },
  slot: {
    start: new Date('2026-03-03T14:00:00Z'),
    end: new Date('2026-03-03T15:00:00Z'),
    timezone: 'America/New_York',
  },
  metadata: {},
  source: BookingV2_Source.SOURCE_V1,
  createdAt: new Date('2026-03-02T12:00:00Z'),
  updatedAt: new Date('2026-03-02T12:00:00Z'),
  confirmationUrl: 'https://example.test/api/v1/bookings/bkg_1/confirm?token=t',
};
