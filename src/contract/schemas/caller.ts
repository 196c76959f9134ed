import { z } from 'zod';
import { protoView } from '../proto-view.js';
import { Organization } from './organization.js';
import { KeyMode, KeyType } from './api-key.js';

/** Answer of GET /api/v2/caller: who the call's credentials are and which organization the call acts in. */
export const CallerIdentity = z.object({
  keyId: z.string(),
  keyType: KeyType,
  mode: protoView(
    KeyMode.extract(['test', 'live']).meta({
      description: "The key's mode, which decides side effects (e-mail, webhooks).",
    }),
    { schema: KeyMode },
  ),
  platformId: z.string(),
  organizationId: z.string().nullable().meta({
    description:
      "The organization named by Service-Organization-Id (platform key) or the key's own (organization key); null for a platform key sent without the header.",
  }),
  defaultOrganizationId: z.string().nullable().meta({
    description:
      "Platform keys: the platform's default organization, where organization-scoped calls act when the header is left out. null for organization keys.",
  }),
  organization: Organization.pick({
    id: true,
    name: true,
    externalId: true,
    settings: true,
    providerGraphVersion: true,
  })
    .nullable()
    .meta({ description: 'The organization of `organizationId`; null when `organizationId` is.' }),
});
