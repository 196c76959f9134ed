import { h, type Child } from './dom.js';

/** A column: its header and how a row shows in it. */
export interface Column<T> {
  header: string;
  cell(row: T): Child | Child[];
  /** Right-aligned numbers. */
  numeric?: boolean;
}

/** A table with a caption (for screen readers), or an empty-state line when there are no rows. */
export function dataTable<T>(caption: string, columns: Column<T>[], rows: T[], empty = 'Nothing yet.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  // The wrapper scrolls sideways on narrow screens: focusable and named, so keyboard users can scroll it too.
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : undefined }, c.header)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            columns.map((c) => h('td', { class: c.numeric ? 'num' : undefined }, c.cell(r))),
          ),
        ),
      ),
    ),
  );
}
