import { z } from 'zod';
import { cursor, instant, isoTimestamp, name200, pageLimit, text } from '../fields.js';

/** The type of an API key: one enum (`KeyType`) in the typed API, wherever it is given or answered. */
export const KeyType = z.enum(['platform_live', 'platform_test', 'organization_live', 'organization_test']);

/**
 * The mode of a key, which decides side effects (e-mail, webhooks): one enum (`KeyMode`) in the typed API. REST lists
 * its values in this order where it filters (GET /api/v2/events) and the other way round where it answers (GET
 * /api/v2/caller): that field takes `KeyMode.extract` for its REST order and this enum as its proto view.
 */
export const KeyMode = z.enum(['live', 'test']);

/** Body of POST /api/v2/api-keys. */
export const CreateApiKeyBody = z.object({
  type: KeyType,
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
export const ListApiKeysQuery = z.object({ limit: pageLimit(), cursor: cursor().optional() });

/** Path of /api/v2/api-keys/:id. */
export const ApiKeyPath = z.object({ id: text(200, 1) });
