import type { z } from 'zod';
import type {
  Resolution as ResolutionSchema,
  ResolutionOption as ResolutionOptionSchema,
} from '../../contract/schemas/resolution.js';
import { ApiError } from '../api-client.js';
import type { Page } from '../page.js';
import { dataTable } from '../ui/data-table.js';
import { h } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { slotText, statusBadge, timeCell, valuesText } from '../ui/format.js';
import { resolutionCandidates } from './resolution-candidates.js';

type Resolution = z.infer<typeof ResolutionSchema>;
type ResolutionOption = z.infer<typeof ResolutionOptionSchema>;
type Warning = Resolution['warnings'][number];

function fact(label: string, value: Node | string | number): HTMLElement {
  return h('div', {}, h('dt', {}, label), h('dd', {}, value));
}

function warningList(warnings: Warning[]): HTMLElement | null {
  if (warnings.length === 0) return null;
  return h(
    'ul',
    { class: 'warnings' },
    warnings.map((w) =>
      h(
        'li',
        {},
        h('strong', {}, w.code),
        ' ',
        w.message,
        w.providerId ? h('span', { class: 'muted small' }, ` (provider ${w.providerId})`) : null,
        w.field ? h('span', { class: 'muted small' }, ` (field ${w.field})`) : null,
      ),
    ),
  );
}

/** One option: its provider and slot, the reason in words, the constraints it matched, its ranking and warnings. */
function optionCard(o: ResolutionOption): HTMLElement {
  const headingId = `option-${o.optionId}`;
  return h(
    'li',
    { class: 'card option' },
    h(
      'article',
      { 'aria-labelledby': headingId },
      h('h3', { id: headingId }, `#${o.rank} ${o.provider.displayName}`),
      h(
        'p',
        { class: 'option-slot' },
        slotText(o.slot),
        ' · ',
        o.service.displayName,
        ` (${o.service.durationMinutes} min)`,
      ),
      h('p', { class: 'reason' }, o.reason),
      h(
        'p',
        { class: 'muted small' },
        'Score ',
        String(o.score),
        ' · ',
        statusBadge(o.availabilityStatus),
        ' · option ',
        h('code', {}, o.optionId),
        ' · provider ',
        h('code', {}, o.provider.id),
      ),
      o.matchedConstraints.length === 0
        ? h('p', { class: 'muted' }, 'No hard constraint was requested.')
        : dataTable(
            `Constraints matched by option ${o.rank}`,
            [
              { header: 'Constraint', cell: (m) => h('strong', {}, m.code) },
              { header: 'Field', cell: (m) => m.field },
              { header: 'Status', cell: (m) => statusBadge(m.status) },
              { header: 'Expected', cell: (m) => valuesText(m.required) },
              { header: 'Provider has', cell: (m) => valuesText(m.actual) },
            ],
            o.matchedConstraints,
          ),
      o.rankingFactors.length === 0
        ? null
        : h(
            'p',
            { class: 'small' },
            'Ranking: ',
            o.rankingFactors
              .map((f, i) => [i > 0 ? ', ' : '', h('code', {}, f.code), ` ${f.points >= 0 ? '+' : ''}${f.points}`])
              .flat(),
          ),
      warningList(o.warnings),
    ),
  );
}

/** A resolution: its outcome, options with their reasons, zero-result reasons, and the "why not" candidates view. */
export const resolutionPage: Page = {
  path: '/console/resolutions/:id',
  title: 'Resolution',
  needsOrganization: true,
  async render(ctx) {
    const id = ctx.params.id!;
    const inspector = h(
      'a',
      { href: `/console/inspector/resolution/${encodeURIComponent(id)}` },
      'Open its actor in the inspector',
    );
    let r: Resolution;
    try {
      r = await ctx.api.get<Resolution>(`/api/v2/resolutions/${encodeURIComponent(id)}`, undefined, ctx.signal);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 401) throw err;
      // An expired or unknown resolution: say so, and still offer the inspector (its machine history outlives the read).
      return h(
        'section',
        {},
        h('h1', { tabindex: -1 }, `Resolution ${id}`),
        errorNotice(err),
        h('p', {}, inspector),
        h('p', {}, h('a', { href: '/console/resolutions' }, 'All resolutions')),
      );
    }
    const s = r.summary;
    const exclusions = Object.entries(r.exclusionSummary);
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Resolution ', h('code', {}, r.resolutionId)),
      h('p', { class: 'actions' }, inspector),
      h(
        'dl',
        { class: 'facts' },
        fact('Status', statusBadge(r.status)),
        fact('Policy', `${r.policy.id} v${r.policy.version}`),
        fact('Graph version', r.providerGraphVersion),
        fact('Created', timeCell(r.createdAt)),
        fact('Expires', timeCell(r.expiresAt)),
        fact('Request id', h('code', { class: 'small' }, r.requestId)),
      ),
      h('h2', {}, 'Request summary'),
      h(
        'dl',
        { class: 'counts' },
        fact('Providers scanned', s.providersScanned),
        fact('Eligible providers', s.eligibleProviders),
        fact('With verified availability', s.providersWithVerifiedAvailability),
        fact('Slots evaluated', s.evaluatedSlots),
        fact('Options returned', s.optionsReturned),
      ),
      r.warnings.length ? [h('h2', {}, 'Warnings'), warningList(r.warnings)] : null,
      r.zeroResultReasons?.length
        ? [
            h('h2', {}, 'Why there are no options'),
            dataTable(
              'Zero-result reasons',
              [
                { header: 'Reason', cell: (z) => h('strong', {}, z.reasonCode) },
                { header: 'Description', cell: (z) => z.description },
                { header: 'Providers affected', numeric: true, cell: (z) => z.affectedProviders },
                { header: 'Suggestion', cell: (z) => z.suggestion },
              ],
              r.zeroResultReasons,
            ),
          ]
        : null,
      h('h2', {}, `Options (${r.options.length})`),
      r.options.length
        ? h('ol', { class: 'options' }, r.options.map(optionCard))
        : h('p', { class: 'empty' }, 'This resolution offered no options.'),
      exclusions.length
        ? [
            h('h2', {}, 'Exclusions by first code'),
            dataTable(
              'Providers excluded, counted under their first exclusion code',
              [
                { header: 'Exclusion code', cell: ([code]) => h('strong', {}, code) },
                { header: 'Providers', numeric: true, cell: ([, n]) => n },
              ],
              exclusions,
            ),
          ]
        : null,
      await resolutionCandidates(ctx, r.resolutionId),
    );
  },
};
