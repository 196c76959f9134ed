import {
  CreateOrganizationBody,
  ListOrganizationsQuery,
  Organization,
  OrganizationOverview,
  OrganizationPath,
  UpdateOrganizationBody,
} from '../schemas/organization.js';
import { CallerIdentity } from '../schemas/caller.js';
import { ApiKey, ApiKeyPath, CreateApiKeyBody, CreatedApiKey, ListApiKeysQuery } from '../schemas/api-key.js';
import { listOf } from '../schemas/list-envelope.js';
import type { RouteSpec } from '../route.js';

/** Organization and API key routes (CONTRACT part 2). */
export const organizationRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/api/v2/organizations',
    service: 'OrganizationService',
    rpc: 'CreateOrganization',
    tag: 'organizations',
    summary: 'Create an organization (platform key).',
    description:
      "Creates an organization in the caller's platform with its settings (plan `free`, allowUnverifiable false and no timezone unless given). externalId is unique per platform: a repeat is 409.",
    platformKeyOnly: true,
    body: CreateOrganizationBody,
    response: Organization,
    errors: ['DUPLICATE_EXTERNAL_ID', 'PLATFORM_KEY_REQUIRED'],
  },
  {
    method: 'GET',
    path: '/api/v2/organizations',
    service: 'OrganizationService',
    rpc: 'ListOrganizations',
    tag: 'organizations',
    summary: 'List the organizations the key may see.',
    description: 'Lists organizations in id order with cursor pagination.',
    access: "Any API key: a platform key sees its platform's organizations, an organization key its own.",
    query: ListOrganizationsQuery,
    response: listOf(Organization),
  },
  {
    method: 'GET',
    path: '/api/v2/organizations/:id',
    service: 'OrganizationService',
    rpc: 'GetOrganization',
    tag: 'organizations',
    summary: 'Read an organization.',
    description: 'Answers one organization with its settings and provider graph version.',
    access:
      "Any API key of the organization's platform; an organization key only for its own organization (else 403 FORBIDDEN).",
    params: OrganizationPath,
    response: Organization,
    errors: ['ORGANIZATION_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v2/organizations/:id/overview',
    service: 'OrganizationService',
    rpc: 'GetOrganizationOverview',
    tag: 'organizations',
    summary:
      'An organization with counts of what it holds (providers, services, bookings by status, resolutions of the last 24 hours, active holds, open manual-review entries, webhook deliveries by status, audit events), for the console. Visible as GET /api/v2/organizations/:id is.',
    description: 'Answers the organization and live counts of what it holds, computed when asked (`generatedAt`).',
    access:
      "Any API key of the organization's platform; an organization key only for its own organization (else 403 FORBIDDEN).",
    params: OrganizationPath,
    response: OrganizationOverview,
    errors: ['ORGANIZATION_NOT_FOUND'],
  },
  {
    method: 'PATCH',
    path: '/api/v2/organizations/:id',
    service: 'OrganizationService',
    rpc: 'UpdateOrganization',
    tag: 'organizations',
    summary: 'Update an organization’s name and settings (platform key).',
    description: "Changes the name and merges the given settings into the organization's settings; other fields stay.",
    platformKeyOnly: true,
    params: OrganizationPath,
    body: UpdateOrganizationBody,
    response: Organization,
    errors: ['ORGANIZATION_NOT_FOUND', 'PLATFORM_KEY_REQUIRED'],
  },
  {
    method: 'GET',
    path: '/api/v2/caller',
    service: 'ApiKeyService',
    rpc: 'GetCaller',
    tag: 'api-keys',
    summary:
      'Who the credentials are: key, type, mode, platform, and the organization the call acts in (null for a platform key without Service-Organization-Id). Any key.',
    description:
      'Tells which key is calling, its type and mode, and which organization the call acts in; useful to check a key and a Service-Organization-Id header before other calls.',
    access: 'Any API key.',
    response: CallerIdentity,
  },
  {
    method: 'POST',
    path: '/api/v2/api-keys',
    service: 'ApiKeyService',
    rpc: 'CreateApiKey',
    tag: 'api-keys',
    summary: 'Create an API key; the secret is shown once. A test key creates only test keys.',
    description:
      "Creates a key of the caller's platform and answers it once with its secret (`key`); only a hash is stored. A platform key type belongs to the platform's default organization; an organization key to `organizationId` (default: the organization the call acts in). Live key types need a live key (a test key: 403 LIVE_KEY_REQUIRED on `type`).",
    platformKeyOnly: true,
    body: CreateApiKeyBody,
    response: CreatedApiKey,
    errors: ['PLATFORM_KEY_REQUIRED', 'LIVE_KEY_REQUIRED', 'ORGANIZATION_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v2/api-keys',
    service: 'ApiKeyService',
    rpc: 'ListApiKeys',
    tag: 'api-keys',
    summary: 'List the platform’s API keys (never their secrets).',
    description:
      "Lists the platform's keys in id order with cursor pagination, with a hint of each secret and when it expires or was revoked.",
    platformKeyOnly: true,
    query: ListApiKeysQuery,
    response: listOf(ApiKey),
    errors: ['PLATFORM_KEY_REQUIRED'],
  },
  {
    method: 'DELETE',
    path: '/api/v2/api-keys/:id',
    service: 'ApiKeyService',
    rpc: 'RevokeApiKey',
    tag: 'api-keys',
    summary: 'Revoke an API key.',
    description:
      'Revokes a key of the platform at once: it is refused everywhere within 500 ms. Answers the key with `revokedAt`.',
    platformKeyOnly: true,
    params: ApiKeyPath,
    response: ApiKey,
    errors: ['PLATFORM_KEY_REQUIRED', 'API_KEY_NOT_FOUND'],
  },
];
