import { CreateOrganizationBody, ListOrganizationsQuery, Organization, OrganizationPath, UpdateOrganizationBody } from '../schemas/organization.js';
import { ApiKey, ApiKeyPath, CreateApiKeyBody, CreatedApiKey, ListApiKeysQuery } from '../schemas/api-key.js';
import { listOf } from '../schemas/list-envelope.js';
import type { RouteSpec } from '../route.js';

/** Organization and API key routes (CONTRACT part 2). */
export const organizationRoutes: RouteSpec[] = [
  { method: 'POST', path: '/api/v2/organizations', service: 'OrganizationService', rpc: 'CreateOrganization', tag: 'organizations', summary: 'Create an organization (platform key).', platformKeyOnly: true, body: CreateOrganizationBody, response: Organization, errors: ['DUPLICATE_EXTERNAL_ID', 'PLATFORM_KEY_REQUIRED'] },
  { method: 'GET', path: '/api/v2/organizations', service: 'OrganizationService', rpc: 'ListOrganizations', tag: 'organizations', summary: 'List the organizations the key may see.', query: ListOrganizationsQuery, response: listOf(Organization) },
  { method: 'GET', path: '/api/v2/organizations/:id', service: 'OrganizationService', rpc: 'GetOrganization', tag: 'organizations', summary: 'Read an organization.', params: OrganizationPath, response: Organization, errors: ['ORGANIZATION_NOT_FOUND'] },
  { method: 'PATCH', path: '/api/v2/organizations/:id', service: 'OrganizationService', rpc: 'UpdateOrganization', tag: 'organizations', summary: 'Update an organization’s name and settings (platform key).', platformKeyOnly: true, params: OrganizationPath, body: UpdateOrganizationBody, response: Organization, errors: ['ORGANIZATION_NOT_FOUND', 'PLATFORM_KEY_REQUIRED'] },
  { method: 'POST', path: '/api/v2/api-keys', service: 'ApiKeyService', rpc: 'CreateApiKey', tag: 'api-keys', summary: 'Create an API key; the secret is shown once.', platformKeyOnly: true, body: CreateApiKeyBody, response: CreatedApiKey, errors: ['PLATFORM_KEY_REQUIRED', 'ORGANIZATION_NOT_FOUND'] },
  { method: 'GET', path: '/api/v2/api-keys', service: 'ApiKeyService', rpc: 'ListApiKeys', tag: 'api-keys', summary: 'List the platform’s API keys (never their secrets).', platformKeyOnly: true, query: ListApiKeysQuery, response: listOf(ApiKey), errors: ['PLATFORM_KEY_REQUIRED'] },
  { method: 'DELETE', path: '/api/v2/api-keys/:id', service: 'ApiKeyService', rpc: 'RevokeApiKey', tag: 'api-keys', summary: 'Revoke an API key.', platformKeyOnly: true, params: ApiKeyPath, response: ApiKey, errors: ['PLATFORM_KEY_REQUIRED', 'API_KEY_NOT_FOUND'] },
];
