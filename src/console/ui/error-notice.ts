import { ApiError } from '../api-client.js';
import { h } from './dom.js';

/** An error shown where the content would be: the API's code, message, field and request id. */
export function errorNotice(err: unknown): HTMLElement {
  if (err instanceof ApiError) {
    return h(
      'div',
      { class: 'notice error', role: 'alert' },
      h('strong', {}, err.code),
      ' ',
      err.message,
      err.field ? h('span', { class: 'muted' }, ` (field ${err.field})`) : null,
      err.requestId ? h('div', { class: 'muted small' }, `request ${err.requestId}`) : null,
    );
  }
  return h('div', { class: 'notice error', role: 'alert' }, err instanceof Error ? err.message : String(err));
}
