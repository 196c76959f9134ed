import { h } from './dom.js';

/**
 * A secret the API shows once (a new API key, a webhook signing secret), in a clearly marked box with a copy
 * button and a warning. The secret lives only in this box: it is emptied when `signal` aborts (the reader leaves
 * the page) or when the reader dismisses it, and it is never put in a URL, storage or a log.
 */
export function secretBox(title: string, secret: string, signal: AbortSignal): HTMLElement {
  const status = h('span', { class: 'small', role: 'status' });
  const copy = h('button', { type: 'button', class: 'secondary' }, 'Copy');
  copy.addEventListener('click', () => {
    const refused = () => {
      status.textContent = 'The browser refused to copy: select the secret and copy it by hand.';
    };
    // The Clipboard API exists only in secure contexts and may be refused (headless browsers do): say so, quietly.
    if (!navigator.clipboard) return refused();
    navigator.clipboard.writeText(secret).then(() => {
      status.textContent = 'Copied.';
    }, refused);
  });
  const dismiss = h('button', { type: 'button', class: 'secondary' }, 'I have stored it');
  const box = h(
    'section',
    { class: 'secret-once', 'aria-label': title },
    h('h2', {}, title),
    h(
      'p',
      { class: 'warning' },
      h('strong', {}, 'Copy it now.'),
      ' It is shown this once and will not be shown again.',
    ),
    h('code', { class: 'secret', 'data-secret': '' }, secret),
    h('div', { class: 'actions' }, copy, dismiss, status),
  );
  const forget = () => box.remove();
  dismiss.addEventListener('click', forget);
  signal.addEventListener(
    'abort',
    () => {
      box.replaceChildren();
      forget();
    },
    { once: true },
  );
  return box;
}
