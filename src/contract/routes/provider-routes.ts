import { z } from 'zod';
import { CreateProviderBody, ListProvidersQuery, Provider, ProviderList, ProviderPath, UpdateProviderBody } from '../schemas/provider.js';
import type { RouteSpec } from '../route.js';

const Professional = z.object({
  id: z.string(), externalId: z.string(), name: z.string(), email: z.string().nullable(), username: z.string().nullable(), status: z.string(),
  searchable: z.boolean(), profession: z.string().nullable(), specialty: z.array(z.string()), languages: z.array(z.string()), modality: z.array(z.string()),
  insurance: z.array(z.string()), serviceRegions: z.array(z.string()), ageGroups: z.array(z.string()), acceptsNewClients: z.boolean().nullable(),
  timezone: z.string().nullable(), bio: z.string().nullable(), location: z.string().nullable(), profileVersion: z.number().int(),
});

/** Provider routes (SPEC 4.2, CONTRACT part 3) and the v1 professional views. */
export const providerRoutes: RouteSpec[] = [
  { method: 'POST', path: '/api/v2/providers', service: 'ProviderService', rpc: 'CreateProvider', tag: 'providers', summary: 'Create a provider (platform key). Codes are normalized.', platformKeyOnly: true, body: CreateProviderBody, response: Provider, errors: ['PLATFORM_KEY_REQUIRED', 'DUPLICATE_EXTERNAL_ID'] },
  { method: 'GET', path: '/api/v2/providers', service: 'ProviderService', rpc: 'ListProviders', tag: 'providers', summary: 'List providers with filters; cursor pagination.', query: ListProvidersQuery, response: ProviderList },
  { method: 'GET', path: '/api/v2/providers/:id', service: 'ProviderService', rpc: 'GetProvider', tag: 'providers', summary: 'Read a provider.', params: ProviderPath, response: Provider, errors: ['PROVIDER_NOT_FOUND'] },
  { method: 'PATCH', path: '/api/v2/providers/:id', service: 'ProviderService', rpc: 'UpdateProvider', tag: 'providers', summary: 'Update a provider; profileVersion +1 when something changed.', params: ProviderPath, body: UpdateProviderBody, response: Provider, errors: ['PROVIDER_NOT_FOUND', 'DUPLICATE_EXTERNAL_ID'] },
  { method: 'DELETE', path: '/api/v2/providers/:id', service: 'ProviderService', rpc: 'DeleteProvider', tag: 'providers', summary: 'Deactivate a provider (status inactive, searchable false).', params: ProviderPath, response: Provider, errors: ['PROVIDER_NOT_FOUND'] },
  { method: 'GET', path: '/api/v1/professionals', service: 'ProviderService', rpc: 'ListProfessionals', tag: 'v1', summary: 'v1 view of providers.', query: ListProvidersQuery, response: z.object({ data: z.array(Professional), total: z.number().int(), hasMore: z.boolean(), nextCursor: z.string().nullable() }) },
  { method: 'GET', path: '/api/v1/professionals/:id', service: 'ProviderService', rpc: 'GetProfessional', tag: 'v1', summary: 'v1 view of one provider.', params: ProviderPath, response: Professional, errors: ['PROVIDER_NOT_FOUND'] },
];
