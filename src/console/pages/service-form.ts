import { h } from '../ui/dom.js';
import { formField, selectOf } from '../ui/form-field.js';
import type { Service } from './services-page.js';

/** The form of a service: its fields (the provider aside) and the body they make for a create or an update. */
export interface ServiceForm {
  /** Rows of labelled fields; `lead` is placed first in the first row (the provider picker of a create). */
  rows(lead?: HTMLElement): HTMLElement[];
  /**
   * The body: `create` leaves empty optional fields out (the API's defaults apply); `update` sends every field, an
   * empty price, currency or modality as null (cleared) and an empty slot interval as null (the duration again).
   */
  body(mode: 'create' | 'update'): Record<string, unknown>;
}

/** Builds the fields of a service form, filled from `s` when editing one. */
export function serviceForm(s?: Service): ServiceForm {
  const number = (name: string, value: number | undefined, min: number, max: number, required = false) =>
    h('input', { type: 'number', name, value: value === undefined ? '' : String(value), min, max, step: 1, required });
  const title = h('input', {
    type: 'text',
    name: 'title',
    required: true,
    maxlength: 200,
    autocomplete: 'off',
    value: s?.title ?? '',
  });
  const duration = number('duration', s?.duration ?? 50, 5, 1440, true);
  // The API takes the smallest currency unit (cents); the form shows the amount.
  const price = h('input', {
    type: 'number',
    name: 'price',
    min: 0,
    step: 0.01,
    inputmode: 'decimal',
    value: s?.price == null ? '' : (s.price / 100).toFixed(2),
  });
  const currency = h('input', {
    type: 'text',
    name: 'currency',
    maxlength: 3,
    autocomplete: 'off',
    value: s ? (s.currency ?? '') : 'USD',
  });
  const modality = selectOf(
    'modality',
    [
      ['', 'Not said'],
      ['virtual', 'virtual'],
      ['in-person', 'in-person'],
      ['both', 'both'],
    ],
    s?.modality ?? '',
  );
  // An interval equal to the duration is shown empty: it is the default and follows a new duration.
  const interval = number(
    'slotIntervalMinutes',
    s && s.slotIntervalMinutes !== s.duration ? s.slotIntervalMinutes : undefined,
    5,
    1440,
  );
  const notice = number('minimumNoticeMinutes', s?.minimumNoticeMinutes, 0, 525600);
  const before = number('bufferBeforeMinutes', s?.bufferBeforeMinutes, 0, 1440);
  const after = number('bufferAfterMinutes', s?.bufferAfterMinutes, 0, 1440);
  const counts = [
    [notice, 'minimumNoticeMinutes'],
    [before, 'bufferBeforeMinutes'],
    [after, 'bufferAfterMinutes'],
  ] as const;

  return {
    rows: (lead) => [
      h(
        'div',
        { class: 'form-row' },
        lead,
        formField('Title', title, 'The slug is made from it; unique per provider.'),
        formField('Duration (minutes)', duration),
        formField('Modality', modality),
      ),
      h(
        'div',
        { class: 'form-row' },
        formField('Price', price, 'Optional, e.g. 120.00'),
        formField('Currency', currency, 'ISO 4217, e.g. USD'),
        formField('Slot interval (minutes)', interval, 'Default: the duration'),
        formField('Minimum notice (minutes)', notice, 'Default 0'),
        formField('Buffer before (minutes)', before, 'Default 0'),
        formField('Buffer after (minutes)', after, 'Default 0'),
      ),
    ],
    body(mode) {
      const body: Record<string, unknown> = { title: title.value.trim(), duration: Number(duration.value) };
      const amount = price.value === '' ? null : Math.round(Number(price.value) * 100);
      const code = currency.value.trim() || null;
      if (mode === 'update') {
        Object.assign(body, {
          price: amount,
          currency: code,
          modality: modality.value || null,
          slotIntervalMinutes: interval.value === '' ? null : Number(interval.value),
        });
        for (const [input, key] of counts) body[key] = input.value === '' ? 0 : Number(input.value);
        return body;
      }
      if (amount !== null) Object.assign(body, { price: amount, currency: code ?? '' });
      if (modality.value) body.modality = modality.value;
      if (interval.value !== '') body.slotIntervalMinutes = Number(interval.value);
      for (const [input, key] of counts) if (input.value !== '') body[key] = Number(input.value);
      return body;
    },
  };
}
