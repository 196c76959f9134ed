import { h } from './dom.js';

/** A text input for a list of codes, shown comma-separated (`es, en`). */
export function codeListInput(name: string, values: readonly string[] = []): HTMLInputElement {
  return h('input', {
    type: 'text',
    name,
    value: values.join(', '),
    autocomplete: 'off',
    spellcheck: 'false',
  });
}

/** The codes of a comma- or space-separated list, empty ones left out (the API normalizes and dedupes them). */
export function codeListOf(text: string): string[] {
  return text
    .split(/[,\s]+/)
    .map((c) => c.trim())
    .filter((c) => c !== '');
}
