import type { z } from 'zod';
import type { Provider } from '../../contract/schemas/provider.js';
import { h } from '../ui/dom.js';
import { formField, selectOf } from '../ui/form-field.js';

type LicenseRecord = z.infer<typeof Provider>['licenseRecords'][number];

const STATUSES = ['active', 'pending', 'inactive', 'expired', 'revoked'];

/** The licence records a provider form edits: one fieldset per licence, "Add a licence" and "Remove" per licence. */
export interface LicenseRecordsField {
  element: HTMLElement;
  /** The licences as the API takes them (`expiresAt` and `verifiedAt` left out when empty). */
  values(): Record<string, string>[];
}

/** Edits a provider's licence records (type, region, status, expiry date, verification time). */
export function licenseRecordsField(initial: readonly LicenseRecord[]): LicenseRecordsField {
  const list = h('div', { class: 'license-list' });
  const add = h('button', { type: 'button', class: 'secondary' }, 'Add a licence');
  const element = h(
    'fieldset',
    { class: 'checks licences' },
    h('legend', {}, 'Licences'),
    h(
      'p',
      { class: 'hint' },
      'A resolution asking for a licence region judges each licence on the date of every slot.',
    ),
    list,
    add,
  );
  const renumber = () => {
    const rows = [...list.querySelectorAll<HTMLFieldSetElement>('fieldset.license')];
    rows.forEach((row, i) => {
      row.querySelector('legend')!.textContent = `Licence ${i + 1}`;
      row.querySelector('button')!.setAttribute('aria-label', `Remove licence ${i + 1}`);
    });
  };
  const addRow = (l?: LicenseRecord) => {
    const text = (name: string, value: string | undefined, extra: Record<string, string> = {}) =>
      h('input', { type: 'text', name, value: value ?? '', autocomplete: 'off', spellcheck: 'false', ...extra });
    const remove = h('button', { type: 'button', class: 'secondary' }, 'Remove');
    const row = h(
      'fieldset',
      { class: 'license' },
      h('legend', {}, 'Licence'),
      h(
        'div',
        { class: 'form-row' },
        formField('Licence type', text('licenseTypeCode', l?.licenseTypeCode, { required: 'true' }), 'e.g. psy'),
        formField('Region', text('regionCode', l?.regionCode, { required: 'true' }), 'e.g. US-NY'),
        formField(
          'Licence status',
          selectOf(
            'licenseStatus',
            STATUSES.map((s) => [s, s]),
            l?.status,
          ),
        ),
        formField('Expires', h('input', { type: 'date', name: 'expiresAt', value: l?.expiresAt?.slice(0, 10) ?? '' })),
        formField('Verified at', text('verifiedAt', l?.verifiedAt), 'ISO time, e.g. 2026-01-05T00:00:00Z'),
      ),
      remove,
    );
    remove.addEventListener('click', () => {
      row.remove();
      renumber();
      add.focus();
    });
    list.append(row);
    renumber();
    return row;
  };
  for (const l of initial) addRow(l);
  add.addEventListener('click', () => addRow().querySelector('input')?.focus());
  return {
    element,
    values() {
      return [...list.querySelectorAll<HTMLFieldSetElement>('fieldset.license')].map((row) => {
        const v = (name: string) =>
          row.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${name}"]`)!.value.trim();
        const record: Record<string, string> = {
          licenseTypeCode: v('licenseTypeCode'),
          regionCode: v('regionCode'),
          status: v('licenseStatus'),
        };
        if (v('expiresAt')) record.expiresAt = v('expiresAt');
        if (v('verifiedAt')) record.verifiedAt = v('verifiedAt');
        return record;
      });
    },
  };
}
