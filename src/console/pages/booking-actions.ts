import type { z } from 'zod';
import type { BookingV1Cancelled, BookingV1Rescheduled, SlotsV1Page } from '../../contract/schemas/booking.js';
import { ApiError } from '../api-client.js';
import type { PageContext } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { formField } from '../ui/form-field.js';
import { idLink } from '../ui/format.js';
import { idempotentAction } from '../ui/idempotent-action.js';
import type { Booking } from './bookings-page.js';

type Slots = z.infer<typeof SlotsV1Page>;

/** Statuses a booking can still be cancelled or moved from (the v1 routes answer 409 for the others). */
const OPEN = new Set(['pending', 'confirmed']);

/** The local date (YYYY-MM-DD) of an instant in a time zone. */
function localDate(iso: string, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
      new Date(iso),
    );
  } catch {
    return iso.slice(0, 10);
  }
}

/**
 * Cancel and reschedule of one booking (POST /api/v1/bookings/:id/cancel and …/reschedule). Each action sends one
 * Idempotency-Key, kept when the person retries it after a failure; `changed` re-renders the page afterwards.
 */
export function bookingActions(ctx: PageContext, b: Booking, changed: (notice: HTMLElement) => void): HTMLElement {
  if (!OPEN.has(b.status))
    return h(
      'p',
      { class: 'muted', 'data-booking-actions': 'closed' },
      `A ${b.status} booking can no longer be cancelled or rescheduled.`,
    );
  const { api } = ctx;
  const path = `/api/v1/bookings/${encodeURIComponent(b.id)}`;

  // Cancel: an optional reason, one key per action.
  const cancelAction = idempotentAction();
  const reason = h('textarea', { name: 'reason', rows: 2, maxlength: 1000 });
  const cancelProblem = h('div', {});
  const cancelButton = h('button', { type: 'submit', class: 'danger' }, 'Cancel booking');
  const cancelForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'cancel-title' },
    h('h2', { id: 'cancel-title' }, 'Cancel'),
    h('p', { class: 'small muted' }, 'Frees the slot, sends booking.cancelled and e-mails the customer a notice.'),
    formField('Reason (optional)', reason),
    cancelProblem,
    cancelButton,
  );
  cancelForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    replaceChildren(cancelProblem);
    const body = reason.value.trim() ? { reason: reason.value.trim() } : {};
    cancelButton.disabled = true;
    try {
      const done = await api.send<z.infer<typeof BookingV1Cancelled>>('POST', `${path}/cancel`, body, {
        idempotencyKey: cancelAction.keyFor(body),
      });
      cancelAction.succeeded();
      changed(h('div', { class: 'notice ok', role: 'status' }, `Booking cancelled at ${done.cancelledAt}.`));
    } catch (err) {
      // The booking left pending/confirmed meanwhile (or an earlier attempt whose answer was lost cancelled it):
      // read it again and show why, above its current state.
      if (err instanceof ApiError && err.code === 'BOOKING_STATE_CONFLICT') return changed(errorNotice(err));
      replaceChildren(cancelProblem, errorNotice(err));
      cancelButton.disabled = false;
    }
  });

  // Reschedule: a local date in the slot's time zone, then one of that day's free times.
  const rescheduleAction = idempotentAction();
  const zone = b.slot.timezone;
  const date = h('input', { type: 'date', name: 'date', required: true, value: localDate(b.slot.start, zone) });
  const time = h('select', { name: 'time', required: true });
  const times = h('p', { class: 'small muted', role: 'status' });
  const rescheduleProblem = h('div', {});
  const rescheduleButton = h('button', { type: 'submit' }, 'Reschedule booking');
  let loading = 0;
  const loadTimes = async () => {
    const mine = ++loading;
    replaceChildren(time);
    rescheduleButton.disabled = true;
    if (!date.value) return void (times.textContent = 'Choose a date.');
    times.textContent = 'Reading the free times…';
    try {
      const slots = await api.get<Slots>(
        '/api/v1/slots',
        { providerId: b.provider.id, eventTypeId: b.service.id, date: date.value },
        ctx.signal,
      );
      if (mine !== loading) return;
      const free = slots.slots.filter((s) => s.available);
      replaceChildren(
        time,
        free.map((s) => h('option', { value: s.time }, `${s.time} (${s.label})`)),
      );
      times.textContent =
        free.length === 0 ? 'No free time on this date.' : `${free.length} free time${free.length === 1 ? '' : 's'}.`;
      rescheduleButton.disabled = free.length === 0;
    } catch (err) {
      if (mine !== loading || ctx.signal.aborted) return;
      times.textContent = '';
      replaceChildren(rescheduleProblem, errorNotice(err));
    }
  };
  date.addEventListener('change', () => {
    replaceChildren(rescheduleProblem);
    void loadTimes();
  });
  const rescheduleForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'reschedule-title' },
    h('h2', { id: 'reschedule-title' }, 'Reschedule'),
    h(
      'p',
      { class: 'small muted' },
      `Moves it to another time of the same provider and service: this booking becomes rescheduled and a new pending booking takes the new slot. Times are in ${zone}.`,
    ),
    h('div', { class: 'form-row' }, formField('Date', date), formField('Time', time, `Local time in ${zone}`)),
    times,
    rescheduleProblem,
    rescheduleButton,
  );
  rescheduleForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    replaceChildren(rescheduleProblem);
    const body = { date: date.value, time: time.value };
    rescheduleButton.disabled = true;
    try {
      const moved = await api.send<z.infer<typeof BookingV1Rescheduled>>('POST', `${path}/reschedule`, body, {
        idempotencyKey: rescheduleAction.keyFor(body),
      });
      rescheduleAction.succeeded();
      changed(
        h(
          'div',
          { class: 'notice ok', role: 'status' },
          'Booking rescheduled: the new pending booking is ',
          idLink(moved.data.id, `/console/bookings/${encodeURIComponent(moved.data.id)}`),
          '.',
        ),
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 'BOOKING_STATE_CONFLICT') return changed(errorNotice(err));
      // The same date and time again is a retry of this action (same key); another time is a new action.
      replaceChildren(rescheduleProblem, errorNotice(err));
      rescheduleButton.disabled = false;
    }
  });
  void loadTimes();
  return h('div', { class: 'card-grid', 'data-booking-actions': 'open' }, rescheduleForm, cancelForm);
}
