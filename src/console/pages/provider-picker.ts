import type { ApiClient } from '../api-client.js';
import { h } from '../ui/dom.js';
import type { ListPage } from '../ui/paged-table.js';
import type { Provider } from './provider-form.js';

/** A `providerId` select of the organization's providers (the first 500 by the API's order), `selected` chosen. */
export async function providerPicker(
  api: ApiClient,
  signal: AbortSignal,
  selected: string | null,
  opts: { anyLabel?: string; required?: boolean } = {},
): Promise<HTMLSelectElement> {
  const providers = await api.get<ListPage<Provider>>('/api/v2/providers', { limit: 500 }, signal);
  return h(
    'select',
    { name: 'providerId', required: opts.required ?? false },
    h('option', { value: '' }, opts.anyLabel ?? '— choose a provider —'),
    providers.data.map((p) =>
      h('option', { value: p.id, selected: p.id === selected }, `${p.displayName} (${p.externalId})`),
    ),
  );
}
