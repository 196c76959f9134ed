import type { z } from 'zod';
import type {
  Candidate as CandidateSchema,
  CandidatesPage as CandidatesPageSchema,
} from '../../contract/schemas/resolution.js';
import type { PageContext } from '../page.js';
import { h } from '../ui/dom.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField, selectOf } from '../ui/form-field.js';
import { statusBadge, valuesText } from '../ui/format.js';
import { pagedTable } from '../ui/paged-table.js';
import { EXCLUSION_CODES } from '../../domain/eligibility/exclusion-codes.js';

type Candidate = z.infer<typeof CandidateSchema>;
type CandidatesPage = z.infer<typeof CandidatesPageSchema>;

/**
 * Why a candidate was not offered: each exclusion with its constraint, status, code, expected vs actual values and,
 * when the API gives one, its detail (LICENSE_EXPIRED names the expiry date).
 */
function exclusionList(c: Candidate): HTMLElement | string {
  if (c.exclusions.length === 0) return c.eligibilityStatus === 'matched' ? 'Passed every constraint' : '—';
  return h(
    'ul',
    { class: 'exclusions' },
    c.exclusions.map((x) =>
      h(
        'li',
        {},
        h('strong', {}, x.code),
        ' ',
        statusBadge(x.status),
        ' ',
        h('span', {}, `${x.field}: expected ${valuesText(x.required)}; provider has ${valuesText(x.actual)}`),
        x.sourceStatus ? h('span', { class: 'muted small' }, ` (data ${x.sourceStatus})`) : null,
        // What the values do not show, such as the date a licence expires (LICENSE_EXPIRED).
        x.detail ? h('span', { class: 'exclusion-detail' }, ` — ${x.detail}`) : null,
      ),
    ),
  );
}

/**
 * The "why not" view of a resolution: every provider considered, with the exclusions that kept it out of the
 * options, filtered by status or exclusion code (kept in the URL query) and paged by cursor.
 */
export async function resolutionCandidates(ctx: PageContext, resolutionId: string): Promise<HTMLElement> {
  const { api, signal } = ctx;
  const summary = h('p', { class: 'muted' });
  const current = queryValues(ctx.query, ['status', 'exclusionCode']);
  const codes: string[] = [...EXCLUSION_CODES];
  if (current.exclusionCode && !codes.includes(current.exclusionCode)) codes.push(current.exclusionCode);
  const table = pagedTable<Candidate>({
    caption: 'Candidates of this resolution with their exclusions',
    empty: 'No candidate matches these filters.',
    async load(cursor) {
      const filters = queryValues(ctx.query, ['status', 'exclusionCode']);
      const page = await api.get<CandidatesPage>(
        `/api/v2/resolutions/${encodeURIComponent(resolutionId)}/candidates`,
        { ...filters, limit: 100, cursor },
        signal,
      );
      const s = page.summary;
      summary.textContent = `${s.total} considered: ${s.matched} matched, ${s.excluded} excluded, ${s.unknown} with unknown data.`;
      return { data: page.candidates, hasMore: page.hasMore, nextCursor: page.nextCursor };
    },
    columns: [
      { header: 'Provider', cell: (c) => [h('div', {}, c.displayName), h('code', { class: 'small' }, c.providerId)] },
      { header: 'Status', cell: (c) => statusBadge(c.eligibilityStatus) },
      { header: 'Option rank', numeric: true, cell: (c) => c.rank ?? '—' },
      { header: 'Why not offered', cell: exclusionList },
      {
        header: 'Matched constraints',
        cell: (c) => (c.matchedConstraints.length ? c.matchedConstraints.map((m) => m.code).join(', ') : '—'),
      },
    ],
  });
  const form = filterForm(
    'Candidate filters',
    [
      formField(
        'Status',
        selectOf(
          'status',
          [
            ['', 'Any'],
            ['matched', 'matched'],
            ['eligible', 'eligible'],
            ['excluded', 'excluded'],
            ['unknown', 'unknown'],
          ],
          current.status,
        ),
      ),
      formField(
        'Exclusion code',
        selectOf('exclusionCode', [['', 'Any'], ...codes.map((c): [string, string] => [c, c])], current.exclusionCode),
      ),
    ],
    reloadWithFilters(ctx, table),
  );
  await table.reload();
  return h(
    'section',
    { 'aria-labelledby': 'why-not' },
    h('h2', { id: 'why-not' }, 'Why not: every provider considered'),
    h(
      'p',
      {},
      'Each candidate with the constraints that kept it out of the options: what the request expected and what the provider has.',
    ),
    form,
    summary,
    table.element,
  );
}
