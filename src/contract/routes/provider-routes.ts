import { z } from 'zod';
import { nonNegativeInt } from '../fields.js';
import {
  CreateProviderBody,
  ListProvidersQuery,
  Professional,
  Provider,
  ProviderList,
  ProviderPath,
  UpdateProviderBody,
} from '../schemas/provider.js';
import type { RouteSpec } from '../route.js';

/** Provider routes (SPEC 4.2, CONTRACT part 3) and the v1 professional views. */
export const providerRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/api/v2/providers',
    service: 'ProviderService',
    rpc: 'CreateProvider',
    tag: 'providers',
    summary: 'Create a provider (platform key). Codes are normalized.',
    description:
      'Creates a provider in the organization; list codes are normalized and deduplicated. Advances the provider graph version and emits `professional.created`.',
    platformKeyOnly: true,
    body: CreateProviderBody,
    response: Provider,
    errors: ['PLATFORM_KEY_REQUIRED', 'DUPLICATE_EXTERNAL_ID'],
  },
  {
    method: 'GET',
    path: '/api/v2/providers',
    service: 'ProviderService',
    rpc: 'ListProviders',
    tag: 'providers',
    summary: 'List providers with filters; cursor pagination.',
    description:
      "Lists the organization's providers, filtered by status, searchability, externalId, a specialty, language, profession or modality code, or location (v2 or short v1 filter names).",
    query: ListProvidersQuery,
    response: ProviderList,
  },
  {
    method: 'GET',
    path: '/api/v2/providers/:id',
    service: 'ProviderService',
    rpc: 'GetProvider',
    tag: 'providers',
    summary: 'Read a provider.',
    description: 'Answers one provider of the organization.',
    params: ProviderPath,
    response: Provider,
    errors: ['PROVIDER_NOT_FOUND'],
  },
  {
    method: 'PATCH',
    path: '/api/v2/providers/:id',
    service: 'ProviderService',
    rpc: 'UpdateProvider',
    tag: 'providers',
    summary: 'Update a provider; profileVersion +1 when something changed.',
    description:
      'Applies the given fields only; null clears an optional field. profileVersion and the provider graph version move only when something changed.',
    params: ProviderPath,
    body: UpdateProviderBody,
    response: Provider,
    errors: ['PROVIDER_NOT_FOUND', 'DUPLICATE_EXTERNAL_ID'],
  },
  {
    method: 'DELETE',
    path: '/api/v2/providers/:id',
    service: 'ProviderService',
    rpc: 'DeleteProvider',
    tag: 'providers',
    summary: 'Deactivate a provider (status inactive, searchable false).',
    description:
      'Soft-deletes: the provider stays readable with status `inactive` and searchable false, and is no longer offered by resolutions.',
    params: ProviderPath,
    response: Provider,
    errors: ['PROVIDER_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v1/professionals',
    service: 'ProviderService',
    rpc: 'ListProfessionals',
    tag: 'v1',
    summary: 'v1 view of providers.',
    description: 'The v1 shape of GET /api/v2/providers (same filters and pagination) for v1 clients.',
    query: ListProvidersQuery,
    response: z.object({
      data: z.array(Professional),
      total: nonNegativeInt(),
      hasMore: z.boolean(),
      nextCursor: z.string().nullable(),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/professionals/:id',
    service: 'ProviderService',
    rpc: 'GetProfessional',
    tag: 'v1',
    summary: 'v1 view of one provider.',
    description: 'The v1 shape of GET /api/v2/providers/:id.',
    params: ProviderPath,
    response: Professional,
    errors: ['PROVIDER_NOT_FOUND'],
  },
];
