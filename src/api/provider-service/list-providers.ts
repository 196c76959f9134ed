import type { ListProvidersRequest, ListProvidersResponse } from '../../gen/scheduling/v1/provider_service.js';
import type { Caller } from '../../application/caller.js';
import { providerMessage } from '../messages/provider-message.js';
import { providerPage, type ProviderPageDeps } from './provider-page.js';

/** What ListProviders uses. */
export type ListProvidersDeps = ProviderPageDeps;

/**
 * ListProviders: the caller's organization's providers in id order, a page at a time, filtered by status,
 * searchability, externalId, one specialty, language, profession or modality code, or part of the location.
 */
export async function listProviders(
  deps: ListProvidersDeps,
  caller: Caller,
  request: ListProvidersRequest,
): Promise<ListProvidersResponse> {
  const p = await providerPage(deps, caller, request, providerMessage);
  return { providerList: { data: p.data, total: p.total, hasMore: p.hasMore, nextPageToken: p.nextPageToken } };
}
