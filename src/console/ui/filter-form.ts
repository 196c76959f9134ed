import { h } from './dom.js';

/**
 * A filter form: its controls' `name`s are the query keys. Submitting (the button or Enter) hands the non-empty
 * values to `apply`, which puts them in the URL (so a reload keeps them) and reloads the list; "Clear" empties them.
 */
export function filterForm(
  label: string,
  fields: HTMLElement[],
  apply: (query: URLSearchParams) => void,
): HTMLFormElement {
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': label },
    fields,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('button', { type: 'reset', class: 'secondary' }, 'Clear'),
    ),
  );
  const submit = () => {
    const query = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v.trim() !== '') query.set(k, v.trim());
    apply(query);
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    submit();
  });
  // Reset restores the markup's initial values, which were the URL's: empty every control instead, then apply.
  form.addEventListener('reset', (ev) => {
    ev.preventDefault();
    for (const el of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')) {
      if (el instanceof HTMLInputElement && el.type === 'checkbox') el.checked = false;
      else el.value = '';
    }
    submit();
  });
  return form;
}

/**
 * The `apply` of a filter form over a list: the filters go into the page's URL (and its `query`, which the list's
 * loader reads), then the list reloads with them.
 */
export function reloadWithFilters(
  page: { setQuery(query: URLSearchParams): void },
  list: { reload(): Promise<unknown> },
): (query: URLSearchParams) => void {
  return (query) => {
    page.setQuery(query);
    void list.reload();
  };
}

/** Turns a URL query into API query values (the console's filter names are the API's). */
export function queryValues(query: URLSearchParams, names: string[]): Record<string, string | undefined> {
  return Object.fromEntries(names.map((n) => [n, query.get(n) ?? undefined]));
}
