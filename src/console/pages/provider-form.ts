import type { z } from 'zod';
import type { Provider as ProviderSchema } from '../../contract/schemas/provider.js';
import { codeListInput, codeListOf } from '../ui/code-list.js';
import { h } from '../ui/dom.js';
import { formField, selectOf } from '../ui/form-field.js';
import { licenseRecordsField } from './license-records-field.js';

/** A provider as the API answers it. */
export type Provider = z.infer<typeof ProviderSchema>;

/** The code lists of a provider, with their labels and hints. */
const LISTS: [key: keyof Provider & string, label: string, hint: string][] = [
  ['languageCodes', 'Languages', 'ISO 639-1, comma-separated: es, en'],
  ['specialtyCodes', 'Specialties', 'e.g. anxiety, depression'],
  ['modalityCodes', 'Modalities', 'virtual, in_person'],
  ['serviceRegionCodes', 'Service regions', 'e.g. US-NY, US-NJ'],
  ['insurancePlanCodes', 'Insurance plans', 'e.g. aetna, bcbs'],
  ['ageGroupCodes', 'Age groups', 'adult, adolescent, child, senior'],
];

/** Optional text fields: an empty one is left out of a create and cleared (null) by an update. */
const TEXTS: [key: keyof Provider & string, label: string, hint?: string][] = [
  ['email', 'E-mail'],
  ['professionCode', 'Profession', 'e.g. psychologist'],
  ['timezone', 'Time zone', 'IANA name, e.g. America/New_York'],
  ['location', 'Location'],
  ['username', 'Username'],
];

const NUMBERS: [key: keyof Provider & string, label: string][] = [
  ['panelCapacity', 'Panel capacity'],
  ['panelCurrentCount', 'Clients on the panel'],
];

/** The form of a provider: fields and the body they make for a create (POST) or an update (PATCH). */
export interface ProviderForm {
  fields: HTMLElement[];
  /** The body: every field; empty optional ones left out (`create`) or null (an update clears them). */
  body(mode: 'create' | 'update'): Record<string, unknown>;
}

/** Builds the fields of a provider form, filled from `p` when editing one. */
export function providerForm(p?: Provider): ProviderForm {
  const text = (name: string, value: string | null | undefined, attrs: Record<string, string | boolean> = {}) =>
    h('input', { type: 'text', name, value: value ?? '', autocomplete: 'off', spellcheck: 'false', ...attrs });
  const externalId = text('externalId', p?.externalId, { required: true, maxlength: '200' });
  const displayName = text('displayName', p?.displayName, { required: true, maxlength: '200' });
  const status = selectOf(
    'status',
    ['active', 'inactive', 'suspended'].map((s): [string, string] => [s, s]),
    p?.status,
  );
  const searchable = h('input', { type: 'checkbox', name: 'searchable', checked: p?.searchable ?? true });
  const accepts = selectOf(
    'acceptsNewClients',
    [
      ['', 'Not said'],
      ['true', 'Yes'],
      ['false', 'No'],
    ],
    p?.acceptsNewClients === null || p?.acceptsNewClients === undefined ? '' : String(p.acceptsNewClients),
  );
  const lists = LISTS.map(([key, label, hint]) => ({
    key,
    input: codeListInput(key, (p?.[key] as string[] | undefined) ?? []),
    label,
    hint,
  }));
  const texts = TEXTS.map(([key, label, hint]) => ({ key, input: text(key, p?.[key] as string | null), label, hint }));
  const numbers = NUMBERS.map(([key, label]) => ({
    key,
    label,
    input: h('input', {
      type: 'number',
      name: key,
      min: 0,
      step: 1,
      value: p?.[key] === null || p?.[key] === undefined ? '' : String(p[key]),
    }),
  }));
  const bio = h('textarea', { name: 'bio', rows: 3, maxlength: 5000 }, p?.bio ?? '');
  const licences = licenseRecordsField(p?.licenseRecords ?? []);
  searchable.id = 'provider-searchable';
  const fields = [
    h(
      'div',
      { class: 'form-row' },
      formField('Display name', displayName),
      formField('External id', externalId, "Your system's id for this provider; unique in the organization."),
      formField('Status', status),
      formField('Accepts new clients', accepts),
    ),
    h('div', { class: 'check' }, searchable, h('label', { for: searchable.id }, 'Searchable (offered by resolutions)')),
    h(
      'div',
      { class: 'form-row' },
      lists.map((l) => formField(l.label, l.input, l.hint)),
    ),
    h(
      'div',
      { class: 'form-row' },
      texts.map((t) => formField(t.label, t.input, t.hint)),
      numbers.map((n) => formField(n.label, n.input)),
    ),
    licences.element,
    formField('Bio', bio),
  ];
  return {
    fields,
    body(mode) {
      const empty = mode === 'create' ? undefined : null;
      const body: Record<string, unknown> = {
        externalId: externalId.value.trim(),
        displayName: displayName.value.trim(),
        status: status.value,
        searchable: searchable.checked,
        acceptsNewClients: accepts.value === '' ? empty : accepts.value === 'true',
        licenseRecords: licences.values(),
        bio: bio.value.trim() || empty,
      };
      for (const l of lists) body[l.key] = codeListOf(l.input.value);
      for (const t of texts) body[t.key] = t.input.value.trim() || empty;
      for (const n of numbers) body[n.key] = n.input.value === '' ? empty : Number(n.input.value);
      return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    },
  };
}
