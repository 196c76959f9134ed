import type { ListProfessionalsRequest, ListProfessionalsResponse } from '../../gen/scheduling/v1/provider_service.js';
import type { Caller } from '../../application/caller.js';
import { professionalMessage } from '../messages/provider-message.js';
import { providerPage, type ProviderPageDeps } from './provider-page.js';

/** What ListProfessionals uses. */
export type ListProfessionalsDeps = ProviderPageDeps;

/** ListProfessionals: the v1 view of ListProviders, with the same filters, paging and refusals. */
export async function listProfessionals(
  deps: ListProfessionalsDeps,
  caller: Caller,
  request: ListProfessionalsRequest,
): Promise<ListProfessionalsResponse> {
  const p = await providerPage(deps, caller, request, professionalMessage);
  return { data: p.data, total: p.total, hasMore: p.hasMore, nextPageToken: p.nextPageToken };
}
