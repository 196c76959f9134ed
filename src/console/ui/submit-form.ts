import type { ApiClient } from '../api-client.js';
import { h, replaceChildren } from './dom.js';
import { errorNotice } from './error-notice.js';
import { idempotentAction } from './idempotent-action.js';

/** What a write form sends: the method, path and body its fields make, or a message when they make none. */
export type FormRequest =
  | { method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: unknown }
  | { problem: string };

/**
 * Makes `form` send the request `build` reads from its fields, with one Idempotency-Key per action (kept when the
 * person submits the same values again after a failure), and hands the answer to `done`. A refusal is shown above the
 * submit button with the API's code, message and field, and the field it names is focused.
 */
export function submitForm<T>(
  api: ApiClient,
  form: HTMLFormElement,
  build: () => FormRequest,
  done: (answer: T) => void | Promise<void>,
): HTMLElement {
  const action = idempotentAction();
  const problem = h('div', {});
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    replaceChildren(problem);
    const request = build();
    if ('problem' in request) {
      replaceChildren(problem, h('div', { class: 'notice error', role: 'alert' }, request.problem));
      return;
    }
    const buttons = [...form.querySelectorAll<HTMLButtonElement>('button[type="submit"]')];
    for (const b of buttons) b.disabled = true;
    try {
      const answer = await api.send<T>(request.method, request.path, request.body, {
        idempotencyKey: action.keyFor([request.method, request.path, request.body]),
      });
      action.succeeded();
      await done(answer);
    } catch (err) {
      replaceChildren(problem, errorNotice(err));
      const field = (err as { field?: string }).field?.split('.')[0];
      if (field) form.querySelector<HTMLElement>(`[name="${CSS.escape(field)}"]`)?.focus();
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  });
  return problem;
}
