import { h } from './dom.js';

/**
 * A "Load more" button for cursor lists: calls `load(cursor)` and hands the page to `show`, until `hasMore` ends.
 * Returns the button to place under the list.
 */
export function loadMore<T>(
  first: { hasMore: boolean; nextCursor: string | null },
  load: (cursor: string) => Promise<{ data: T[]; hasMore: boolean; nextCursor: string | null }>,
  show: (rows: T[]) => void,
): HTMLElement {
  let cursor = first.hasMore ? first.nextCursor : null;
  const button = h('button', { type: 'button', class: 'secondary' }, 'Load more');
  const wrap = h('div', { class: 'pager' }, button);
  const sync = () => {
    wrap.hidden = cursor === null;
  };
  button.addEventListener('click', async () => {
    if (cursor === null) return;
    button.disabled = true;
    try {
      const page = await load(cursor);
      show(page.data);
      cursor = page.hasMore ? page.nextCursor : null;
    } finally {
      button.disabled = false;
      sync();
    }
  });
  sync();
  return wrap;
}
