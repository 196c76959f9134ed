import type { z } from 'zod';
import type { ApiKey as ApiKeySchema } from '../../contract/schemas/api-key.js';
import type { Organization as OrganizationSchema } from '../../contract/schemas/organization.js';
import type { Page } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { dataTable } from '../ui/data-table.js';
import { errorNotice } from '../ui/error-notice.js';
import { formField, selectOf } from '../ui/form-field.js';
import { statusBadge, timeCell } from '../ui/format.js';
import { loadMore } from '../ui/pager.js';
import { secretBox } from '../ui/secret-box.js';

/** A key as `GET /api/v2/api-keys` lists it (never its secret). */
type ApiKey = z.infer<typeof ApiKeySchema>;
type KeyPage = { data: ApiKey[]; hasMore: boolean; nextCursor: string | null };
type Organization = Pick<z.infer<typeof OrganizationSchema>, 'id' | 'name'>;

const KEY_TYPES: [string, string][] = [
  ['organization_test', 'organization_test: one organization, test mode'],
  ['organization_live', 'organization_live: one organization, live mode'],
  ['platform_test', 'platform_test: every organization, test mode'],
  ['platform_live', 'platform_live: every organization, live mode'],
];

function keyStatus(k: ApiKey): string {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && Date.parse(k.expiresAt) <= Date.now()) return 'expired';
  return 'active';
}

/** API keys of the platform (platform keys only): list, create with the secret shown once, revoke after a confirmation. */
export const apiKeysPage: Page = {
  path: '/console/api-keys',
  title: 'API keys',
  nav: 'API keys',
  platformOnly: true,
  async render({ api, caller, signal }) {
    const [first, orgs] = await Promise.all([
      api.get<KeyPage>('/api/v2/api-keys', { limit: 50 }, signal),
      api.get<{ data: Organization[] }>('/api/v2/organizations', { limit: 500 }, signal),
    ]);
    const orgName = new Map(orgs.data.map((o) => [o.id, o.name]));
    const rows = [...first.data];
    /** Where the secret of a key just created appears, and whatever the last action reported. */
    const secretSlot = h('div', {});
    const message = h('div', { role: 'status', tabindex: -1 });
    const tableSlot = h('div', {});

    const revokeCell = (k: ApiKey): HTMLElement | string => {
      if (k.revokedAt) return '—';
      const cell = h('div', { class: 'row-actions' });
      const ask = h('button', { type: 'button', class: 'secondary', 'aria-label': `Revoke ${k.name}` }, 'Revoke');
      ask.addEventListener('click', () => {
        const confirm = h(
          'button',
          { type: 'button', class: 'danger', 'aria-label': `Confirm revoke ${k.name}` },
          'Confirm revoke',
        );
        const cancel = h(
          'button',
          { type: 'button', class: 'secondary', 'aria-label': `Cancel revoking ${k.name}` },
          'Cancel',
        );
        cancel.addEventListener('click', () => {
          replaceChildren(cell, ask);
          ask.focus();
        });
        confirm.addEventListener('click', async () => {
          confirm.disabled = true;
          cancel.disabled = true;
          try {
            const revoked = await api.send<ApiKey>('DELETE', `/api/v2/api-keys/${encodeURIComponent(k.id)}`);
            const at = rows.findIndex((r) => r.id === k.id);
            if (at >= 0) rows[at] = revoked;
            draw();
            replaceChildren(
              message,
              h('div', { class: 'notice ok' }, `Key ${k.name} (${k.id}) is revoked: the API refuses it from now on.`),
            );
          } catch (err) {
            replaceChildren(message, errorNotice(err));
            confirm.disabled = false;
            cancel.disabled = false;
            return;
          }
          message.focus();
        });
        replaceChildren(cell, confirm, ' ', cancel);
        confirm.focus();
      });
      cell.append(ask);
      return cell;
    };

    const draw = () =>
      replaceChildren(
        tableSlot,
        dataTable<ApiKey>(
          'API keys of the platform',
          [
            {
              header: 'Name',
              cell: (k) => [
                k.name,
                k.id === caller.keyId ? h('span', { class: 'muted small' }, ' (this session)') : null,
              ],
            },
            { header: 'Key', cell: (k) => [h('code', {}, k.hint), h('div', { class: 'muted small mono' }, k.id)] },
            { header: 'Type', cell: (k) => k.type },
            {
              header: 'Organization',
              cell: (k) => [
                orgName.get(k.organizationId) ?? '',
                h('div', { class: 'muted small mono' }, k.organizationId),
              ],
            },
            { header: 'Created', cell: (k) => timeCell(k.createdAt) },
            { header: 'Expires', cell: (k) => timeCell(k.expiresAt) },
            { header: 'Status', cell: (k) => statusBadge(keyStatus(k)) },
            { header: 'Actions', cell: revokeCell },
          ],
          rows,
          'No keys yet.',
        ),
      );
    draw();

    // The creation form: the organization applies to organization_* types only.
    const type = selectOf('type', KEY_TYPES);
    const organization = selectOf(
      'organizationId',
      orgs.data.map((o) => [o.id, `${o.name} (${o.id})`]),
      caller.organizationId ?? undefined,
    );
    const orgField = formField('Organization of the key', organization, 'Where an organization_* key acts.');
    const name = h('input', { name: 'name', required: true, maxlength: 200, autocomplete: 'off' });
    const expires = h('input', { name: 'expiresAt', type: 'datetime-local' });
    const syncType = () => {
      const forOrg = type.value.startsWith('organization_');
      orgField.hidden = !forOrg;
      organization.disabled = !forOrg;
    };
    type.addEventListener('change', syncType);
    syncType();
    const submit = h('button', { type: 'submit' }, 'Create key');
    const formError = h('div', {});
    const form = h(
      'form',
      { class: 'card', 'aria-labelledby': 'create-key-title' },
      h('h2', { id: 'create-key-title' }, 'Create a key'),
      formField('Type', type),
      orgField,
      formField('Name', name, 'For people: where the key is used.'),
      formField('Expires (optional)', expires, 'In your time zone; leave empty for a key that does not expire.'),
      formError,
      submit,
    );
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      replaceChildren(formError);
      submit.disabled = true;
      try {
        const body: Record<string, string> = { type: type.value, name: name.value.trim() };
        if (!organization.disabled) body.organizationId = organization.value;
        if (expires.value) body.expiresAt = new Date(expires.value).toISOString();
        const created = await api.send<ApiKey & { key: string }>('POST', '/api/v2/api-keys', body);
        const { key, ...listed } = created;
        if (!rows.some((r) => r.id === listed.id)) rows.unshift(listed);
        draw();
        replaceChildren(secretSlot, secretBox(`New key ${listed.name}: ${listed.id}`, key, signal));
        replaceChildren(message);
        form.reset();
        syncType();
        (secretSlot.querySelector('h2') as HTMLElement | null)?.setAttribute('tabindex', '-1');
        (secretSlot.querySelector('h2') as HTMLElement | null)?.focus();
      } catch (err) {
        replaceChildren(formError, errorNotice(err));
      } finally {
        submit.disabled = false;
      }
    });

    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'API keys'),
      h(
        'p',
        { class: 'muted' },
        "Keys of this platform. A key's secret is shown once, when it is created; the API stores only its hash.",
      ),
      secretSlot,
      form,
      h('h2', {}, 'Keys'),
      message,
      tableSlot,
      loadMore(
        first,
        (cursor) => api.get<KeyPage>('/api/v2/api-keys', { limit: 50, cursor }, signal),
        (more) => {
          for (const k of more) if (!rows.some((r) => r.id === k.id)) rows.push(k);
          draw();
        },
      ),
    );
  },
};
