import { ApiError, createApiClient, type ApiClient } from './api-client.js';
import type { Caller, Page } from './page.js';
import { ALL_PAGES } from './pages/all-pages.js';
import { matchPage } from './router.js';
import { clearSession, loadSession, saveSession, type Session } from './session.js';
import { h, replaceChildren } from './ui/dom.js';
import { errorNotice } from './ui/error-notice.js';
import { formField } from './ui/form-field.js';

const app = document.getElementById('app')!;
let current: AbortController | undefined;

/** The sign-in form: the key is read from the field into sessionStorage and the field is cleared. */
function showSignIn(problem?: unknown): void {
  current?.abort();
  const key = h('input', { type: 'password', name: 'key', autocomplete: 'off', spellcheck: 'false', required: true });
  // method=post: even if a script failed and the browser submitted the form itself, the key would not land in a URL.
  const form = h(
    'form',
    { class: 'card sign-in', method: 'post', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in'),
    h(
      'p',
      {},
      'Paste an API key (a platform key or an organization key). It stays in this tab only and is forgotten when the tab closes.',
    ),
    problem ? errorNotice(problem) : null,
    formField('API key', key, 'service_live_…, service_test_… or an organization key'),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const value = key.value.trim();
    key.value = '';
    saveSession({ key: value });
    void start();
  });
  replaceChildren(app, h('main', { id: 'content', class: 'narrow' }, form));
  key.focus();
}

/** Organization picker for platform keys: the chosen id is sent as Service-Organization-Id. */
async function organizationPicker(api: ApiClient, session: Session): Promise<HTMLElement> {
  const orgs = await api.get<{ data: { id: string; name: string }[] }>('/api/v2/organizations', { limit: 500 });
  const select = h(
    'select',
    { name: 'organization' },
    h('option', { value: '' }, '— platform (no organization) —'),
    orgs.data.map((o) =>
      h('option', { value: o.id, selected: o.id === session.organizationId }, `${o.name} (${o.id})`),
    ),
  );
  select.addEventListener('change', () => {
    saveSession({ key: session.key, ...(select.value ? { organizationId: select.value } : {}) });
    void start();
  });
  return formField('Organization', select);
}

function navigation(caller: Caller, path: string): HTMLElement {
  const links = ALL_PAGES.filter((p) => p.nav && (!p.platformOnly || caller.keyType.startsWith('platform')));
  return h(
    'nav',
    { class: 'side', 'aria-label': 'Console' },
    h(
      'ul',
      {},
      links.map((p) => {
        const active = matchPage([p], path) !== undefined || (p.path !== '/console' && path.startsWith(`${p.path}/`));
        return h('li', {}, h('a', { href: p.path, 'aria-current': active ? 'page' : undefined }, p.nav!));
      }),
      h('li', {}, h('a', { href: '/console/api-reference' }, 'API reference')),
    ),
  );
}

async function renderPage(api: ApiClient, caller: Caller, main: HTMLElement): Promise<void> {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const path = location.pathname;
  const match = matchPage(ALL_PAGES, path);
  const ctx = {
    api,
    caller,
    params: match?.params ?? {},
    query: new URLSearchParams(location.search),
    signal: controller.signal,
    navigate,
    setQuery(q: URLSearchParams) {
      ctx.query = q;
      const s = q.toString();
      history.replaceState(null, '', s ? `${location.pathname}?${s}` : location.pathname);
    },
  };
  const page: Page | undefined = match?.page;
  document.title = `${page?.title ?? 'Not found'} · Console`;
  replaceChildren(main, h('p', { class: 'muted' }, 'Loading…'));
  let content: Node;
  if (!page)
    content = h('section', {}, h('h1', { tabindex: -1 }, 'Not found'), h('p', {}, 'No console page has this address.'));
  else if (page.needsOrganization && !caller.organizationId)
    content = h(
      'section',
      {},
      h('h1', { tabindex: -1 }, page.title),
      h('p', {}, "Choose an organization above: this page shows one organization's data."),
    );
  else {
    try {
      content = await page.render(ctx);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return showSignIn(err);
      content = h('section', {}, h('h1', { tabindex: -1 }, page.title), errorNotice(err));
    }
  }
  if (controller.signal.aborted) return;
  replaceChildren(main, content);
  // Focus goes to the new page's heading, so keyboard and screen-reader users start where the content does.
  (main.querySelector('h1') as HTMLElement | null)?.focus({ preventScroll: true });
  for (const a of document.querySelectorAll('nav.side a')) {
    const href = a.getAttribute('href')!;
    const active = href === path || (href !== '/console' && path.startsWith(`${href}/`));
    if (active) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

let rerender: (() => void) | undefined;

/** Goes to a console path without reloading the page. */
function navigate(path: string): void {
  history.pushState(null, '', path);
  rerender?.();
}

/** Signs in with the tab's session (or shows the form) and draws the console around the current page. */
async function start(): Promise<void> {
  const session = loadSession();
  if (!session) return showSignIn();
  const api = createApiClient(session);
  let caller: Caller;
  try {
    caller = await api.get<Caller>('/api/v2/caller');
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) clearSession();
    return showSignIn(err);
  }
  const main = h('main', { id: 'content', tabindex: -1 });
  const signOut = h('button', { type: 'button', class: 'secondary' }, 'Sign out');
  signOut.addEventListener('click', () => {
    clearSession();
    history.pushState(null, '', '/console');
    showSignIn();
  });
  const who = caller.organization ? `${caller.organization.name}` : 'Platform';
  const header = h(
    'header',
    { class: 'top' },
    h('a', { class: 'skip', href: '#content' }, 'Skip to content'),
    h('a', { class: 'brand', href: '/console' }, 'Scheduling console'),
    h(
      'span',
      { class: 'who' },
      who,
      ' ',
      h('span', { class: `badge badge-${caller.mode}` }, caller.mode),
      ' ',
      h('span', { class: 'muted small' }, caller.keyType),
    ),
    caller.keyType.startsWith('platform') ? await organizationPicker(api, session).catch(errorNotice) : null,
    signOut,
  );
  replaceChildren(app, header, h('div', { class: 'layout' }, navigation(caller, location.pathname), main));
  rerender = () => void renderPage(api, caller, main);
  rerender();
}

document.addEventListener('click', (ev) => {
  const a = (ev.target as Element | null)?.closest?.('a');
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey || a.target)
    return;
  const href = a.getAttribute('href');
  if (
    !href ||
    !href.startsWith('/console') ||
    href.startsWith('/console/api-reference') ||
    href.startsWith('/console/assets')
  )
    return;
  ev.preventDefault();
  navigate(href);
});
window.addEventListener('popstate', () => rerender?.());
void start();
