import { dataTable, type Column } from './data-table.js';
import { h, replaceChildren } from './dom.js';
import { errorNotice } from './error-notice.js';
import { loadMore } from './pager.js';

/** One page of a cursor list (the contract's `{data, hasMore, nextCursor}`). */
export interface ListPage<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** A cursor-paged table and the function that loads it again from the first page. */
export interface PagedTable {
  element: HTMLElement;
  /** Loads the first page again (after a filter change or an action); resolves once it is shown. */
  reload(): Promise<void>;
}

/**
 * A table of a cursor list with "Load more": `load(cursor)` reads one page (no cursor: the first). A failure is shown
 * in place with the API's code and message; "Load more" can then be tried again.
 */
export function pagedTable<T>(opts: {
  caption: string;
  columns: Column<T>[];
  empty: string;
  load(cursor?: string): Promise<ListPage<T>>;
}): PagedTable {
  const element = h('div', { class: 'paged' });
  const problem = h('div', {});
  const count = h('p', { class: 'muted small', role: 'status' });
  const tableSlot = h('div', {});
  let rows: T[] = [];
  let generation = 0;
  const draw = () => {
    replaceChildren(tableSlot, dataTable(opts.caption, opts.columns, rows, opts.empty));
    count.textContent = rows.length === 0 ? '' : `${rows.length} shown.`;
  };
  async function reload(): Promise<void> {
    const mine = ++generation;
    replaceChildren(problem);
    // Until its first page is drawn, the table says it is changing: what it shows now is about to be replaced.
    element.setAttribute('aria-busy', 'true');
    let first: ListPage<T>;
    try {
      first = await opts.load();
    } catch (err) {
      if (mine !== generation) return;
      element.removeAttribute('aria-busy');
      rows = [];
      replaceChildren(element, errorNotice(err));
      return;
    }
    if (mine !== generation) return;
    element.removeAttribute('aria-busy');
    rows = [...first.data];
    draw();
    const more = loadMore<T>(
      first,
      async (cursor) => {
        try {
          replaceChildren(problem);
          return await opts.load(cursor);
        } catch (err) {
          replaceChildren(problem, errorNotice(err));
          return { data: [], hasMore: true, nextCursor: cursor };
        }
      },
      (page) => {
        if (mine !== generation) return;
        rows.push(...page);
        draw();
      },
    );
    replaceChildren(element, count, tableSlot, problem, more);
  }
  return { element, reload };
}
