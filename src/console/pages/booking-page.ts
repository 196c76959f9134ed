import type { z } from 'zod';
import type { Hold } from '../../contract/schemas/hold.js';
import type { Page, PageContext } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { idLink, jsonBlock, slotText, statusBadge, timeCell } from '../ui/format.js';
import { bookingActions } from './booking-actions.js';
import type { Booking } from './bookings-page.js';

function fact(label: string, value: Node | string | number | (Node | string)[]): HTMLElement {
  return h('div', {}, h('dt', {}, label), h('dd', {}, value));
}

/**
 * The hold a booking was confirmed from, read through its option (GET .../options/:optionId/hold); none when the
 * booking did not come from a resolution, the option's latest hold is another booking's, or the resolution expired.
 */
async function holdOf(ctx: PageContext, b: Booking): Promise<z.infer<typeof Hold> | undefined> {
  if (!b.resolutionId || !b.optionId) return undefined;
  try {
    const hold = await ctx.api.get<z.infer<typeof Hold>>(
      `/api/v2/resolutions/${encodeURIComponent(b.resolutionId)}/options/${encodeURIComponent(b.optionId)}/hold`,
      undefined,
      ctx.signal,
    );
    return hold.bookingId === b.id ? hold : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One booking: who, when, its status, links into the inspector for it and for the hold and resolution it came from,
 * and (while it is pending or confirmed) its cancel and reschedule, after which it is read and drawn again.
 */
export const bookingPage: Page = {
  path: '/console/bookings/:id',
  title: 'Booking',
  needsOrganization: true,
  async render(ctx) {
    const root = h('section', {});
    const draw = async (notice?: HTMLElement): Promise<void> => {
      const b = await ctx.api.get<Booking>(
        `/api/v2/bookings/${encodeURIComponent(ctx.params.id!)}`,
        undefined,
        ctx.signal,
      );
      const changed = (n: HTMLElement) =>
        void draw(n).catch((err: unknown) => replaceChildren(root, n, errorNotice(err)));
      replaceChildren(root, ...(await bookingView(ctx, b, notice, changed)));
      if (notice) {
        notice.tabIndex = -1;
        notice.focus();
      }
    };
    await draw();
    return root;
  },
};

/** The booking's heading, the notice of the action just taken, its links, facts, actions and metadata. */
async function bookingView(
  ctx: PageContext,
  b: Booking,
  notice: HTMLElement | undefined,
  changed: (notice: HTMLElement) => void,
): Promise<Node[]> {
  const hold = await holdOf(ctx, b);
  const links = h(
    'ul',
    { class: 'plain links' },
    h(
      'li',
      {},
      h('a', { href: `/console/inspector/booking/${encodeURIComponent(b.id)}` }, 'Open this booking in the inspector'),
    ),
    hold
      ? h(
          'li',
          {},
          h(
            'a',
            { href: `/console/inspector/hold/${encodeURIComponent(hold.holdId)}` },
            'The hold it was confirmed from, in the inspector',
          ),
          ' ',
          h('code', { class: 'small' }, hold.holdId),
        )
      : null,
    b.resolutionId
      ? h(
          'li',
          {},
          h('a', { href: `/console/resolutions/${encodeURIComponent(b.resolutionId)}` }, 'The resolution it came from'),
          ' ',
          h('code', { class: 'small' }, b.resolutionId),
        )
      : null,
  );
  return [
    h('h1', { tabindex: -1 }, 'Booking ', h('code', {}, b.id)),
    notice ?? null,
    links,
    h(
      'dl',
      { class: 'facts' },
      fact('Status', statusBadge(b.status)),
      fact('Slot', slotText(b.slot)),
      fact('Provider', [b.provider.displayName, ' ', h('code', { class: 'small' }, b.provider.id)]),
      fact('Service', `${b.service.displayName} (${b.service.durationMinutes} min)`),
      fact('Customer', [
        b.customer.name,
        b.customer.lastname ? ` ${b.customer.lastname}` : '',
        ' · ',
        b.customer.email,
      ]),
      fact('Customer time zone', b.customer.timezone ?? '—'),
      fact('Source', b.source),
      fact('Option', b.optionId ? h('code', { class: 'small' }, b.optionId) : '—'),
      fact('Created', timeCell(b.createdAt)),
      fact('Updated', timeCell(b.updatedAt)),
      fact('Cancelled', timeCell(b.cancelledAt)),
      fact(
        'Rescheduled from',
        b.rescheduledFrom
          ? idLink(b.rescheduledFrom, `/console/bookings/${encodeURIComponent(b.rescheduledFrom)}`)
          : '—',
      ),
      fact(
        'Rescheduled to',
        b.rescheduledTo ? idLink(b.rescheduledTo, `/console/bookings/${encodeURIComponent(b.rescheduledTo)}`) : '—',
      ),
    ),
    h('h2', {}, 'Change this booking'),
    bookingActions(ctx, b, changed),
    h('h2', {}, 'Metadata'),
    Object.keys(b.metadata).length
      ? jsonBlock(b.metadata, 'Booking metadata')
      : h('p', { class: 'empty' }, 'No metadata.'),
  ].filter((n): n is HTMLElement => n !== null);
}
