import { z } from 'zod';
import { cursor, instant, isoTimestamp, name200, queryInt, text } from '../fields.js';

/** Body of POST /api/v2/api-keys. */
export const CreateApiKeyBody = z.object({
  type: z.enum(['platform_live', 'platform_test', 'organization_live', 'organization_test']),
  organizationId: text(200, 1).optional(),
  name: name200(),
  expiresAt: isoTimestamp().optional(),
});

/** A key as listed (the secret is never shown again). */
export const ApiKey = z.object({
  id: z.string(),
  type: z.string(),
  organizationId: z.string(),
  name: z.string(),
  hint: z.string(),
  createdAt: instant(),
  expiresAt: instant().nullable(),
  revokedAt: instant().nullable(),
});

/** The create answer, which shows the key once. */
export const CreatedApiKey = ApiKey.extend({ key: z.string() });

/** Query of GET /api/v2/api-keys. */
export const ListApiKeysQuery = z.object({ limit: queryInt(1, 500).optional(), cursor: cursor().optional() });

/** Path of /api/v2/api-keys/:id. */
export const ApiKeyPath = z.object({ id: text(200, 1) });
