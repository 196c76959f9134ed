import { z } from 'zod';
import { cursor, ianaTimezone, name200, queryInt, text } from '../fields.js';

/** Plans in increasing order (replay needs `launch` or higher). */
export const PLANS = ['free', 'launch', 'scale', 'enterprise'] as const;

/** Organization settings (CONTRACT part 2). */
export const OrganizationSettings = z.object({
  plan: z.enum(PLANS).optional(),
  allowUnverifiable: z.boolean().optional(),
  timezone: ianaTimezone().optional(),
});

/** Body of POST /api/v2/organizations. */
export const CreateOrganizationBody = z.object({
  externalId: name200(),
  name: name200(),
  settings: OrganizationSettings.optional(),
});

/** Body of PATCH /api/v2/organizations/:id. */
export const UpdateOrganizationBody = z.object({
  name: name200().optional(),
  settings: OrganizationSettings.optional(),
});

/** An organization as answered. */
export const Organization = z.object({
  id: z.string(),
  platformId: z.string(),
  externalId: z.string(),
  name: z.string(),
  settings: z.object({ plan: z.enum(PLANS), allowUnverifiable: z.boolean(), timezone: z.string().nullable() }),
  providerGraphVersion: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** Query of GET /api/v2/organizations. */
export const ListOrganizationsQuery = z.object({ limit: queryInt(1, 500).optional(), cursor: cursor().optional() });

/** Path of /api/v2/organizations/:id. */
export const OrganizationPath = z.object({ id: text(200, 1) });
