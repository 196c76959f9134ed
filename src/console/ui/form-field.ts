import { h } from './dom.js';

let counter = 0;

/** A labelled control: the label is tied to the control by id, a hint by aria-describedby. */
export function formField(
  label: string,
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  const id = control.id || `f${++counter}`;
  control.id = id;
  const hintEl = hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

/** A select of fixed options; the first is selected unless `value` names another. */
export function selectOf(name: string, options: [value: string, label: string][], value?: string): HTMLSelectElement {
  return h(
    'select',
    { name },
    options.map(([v, l]) => h('option', { value: v, selected: v === value }, l)),
  );
}
