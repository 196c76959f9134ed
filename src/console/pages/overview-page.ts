import type { z } from 'zod';
import type { OrganizationOverview } from '../../contract/schemas/organization.js';
import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { statusBadge } from '../ui/format.js';

type Overview = z.infer<typeof OrganizationOverview>;

/** A group of counts (`Bookings`: pending 2, confirmed 5…) as one labelled list. */
function countGroup(title: string, counts: Record<string, number>, link?: string): HTMLElement {
  return h(
    'div',
    { class: 'count-group' },
    h('h3', {}, link ? h('a', { href: link }, title) : title),
    h(
      'dl',
      { class: 'counts' },
      Object.entries(counts).map(([k, v]) =>
        h('div', {}, h('dt', {}, k.replace(/_/g, ' ')), h('dd', {}, v.toLocaleString())),
      ),
    ),
  );
}

/** The organization overview: plan, mode, graph version and counts of what it holds. */
export const overviewPage: Page = {
  path: '/console',
  title: 'Overview',
  nav: 'Overview',
  async render({ api, caller, signal }) {
    if (!caller.organizationId) {
      const orgs = await api.get<{
        data: { id: string; name: string; externalId: string; settings: { plan: string } }[];
        hasMore: boolean;
      }>('/api/v2/organizations', { limit: 100 }, signal);
      return h(
        'section',
        {},
        h('h1', { tabindex: -1 }, 'Platform overview'),
        h('p', {}, 'Signed in with a platform key. Choose an organization in the header to see its data.'),
        h('h2', {}, `Organizations (${orgs.data.length}${orgs.hasMore ? '+' : ''})`),
        h(
          'ul',
          { class: 'plain' },
          orgs.data.map((o) =>
            h('li', {}, h('strong', {}, o.name), ' ', h('code', {}, o.id), ' ', statusBadge(o.settings.plan)),
          ),
        ),
      );
    }
    const {
      organization: org,
      counts,
      generatedAt,
    } = await api.get<Overview>(
      `/api/v2/organizations/${encodeURIComponent(caller.organizationId)}/overview`,
      undefined,
      signal,
    );
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, org.name),
      h(
        'dl',
        { class: 'facts' },
        h('div', {}, h('dt', {}, 'Plan'), h('dd', {}, statusBadge(org.settings.plan))),
        h('div', {}, h('dt', {}, 'Mode of this key'), h('dd', {}, statusBadge(caller.mode))),
        h('div', {}, h('dt', {}, 'Provider graph version'), h('dd', {}, String(org.providerGraphVersion))),
        h('div', {}, h('dt', {}, 'Time zone'), h('dd', {}, org.settings.timezone ?? 'UTC')),
        h('div', {}, h('dt', {}, 'Organization id'), h('dd', { class: 'mono' }, org.id)),
      ),
      h('h2', {}, 'Counts'),
      countGroup('Providers', counts.providers),
      countGroup('Activity', {
        services: counts.services,
        'resolutions (24 h)': counts.resolutionsLast24h,
        'active holds': counts.activeHolds,
        'open manual reviews': counts.manualReviewOpen,
        'audit events': counts.auditEvents,
      }),
      countGroup('Bookings', counts.bookings, '/console/bookings'),
      countGroup('Webhook deliveries', counts.webhookDeliveries, '/console/webhooks'),
      h(
        'p',
        { class: 'muted small' },
        'Counted at ',
        h('time', { datetime: generatedAt }, new Date(generatedAt).toLocaleString()),
        '.',
      ),
    );
  },
};
