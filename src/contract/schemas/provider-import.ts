import { z } from 'zod';
import { cursor, queryInt, text } from '../fields.js';

/** Import modes (SPEC 4.3). */
export const ImportMode = z.enum(['upsert', 'create_only', 'update_only']);

/** Body of POST /api/v2/provider-imports; rows are validated one by one when the job runs. */
export const CreateProviderImportBody = z.object({
  mode: ImportMode.optional(),
  dryRun: z.boolean().optional(),
  deactivateMissing: z.boolean().optional(),
  providers: z.array(z.unknown()).max(500),
});

/** Per-row error of an import. */
export const ImportRowError = z.object({ row: z.number().int(), externalId: z.string().nullable(), field: z.string(), code: z.string(), message: z.string() });

/** Per-row outcome of an import. */
export const ImportRowOutcome = z.object({ row: z.number().int().nullable(), externalId: z.string().nullable(), providerId: z.string().nullable(), outcome: z.enum(['created', 'updated', 'unchanged', 'invalid', 'deactivated']) });

/** Import summary counters. */
export const ImportSummary = z.object({ received: z.number().int(), created: z.number().int(), updated: z.number().int(), unchanged: z.number().int(), invalid: z.number().int(), deactivated: z.number().int() });

/** An import job as answered. */
export const ProviderImport = z.object({
  importId: z.string(),
  status: z.enum(['validating', 'processing', 'completed', 'failed']),
  dryRun: z.boolean(),
  mode: ImportMode,
  deactivateMissing: z.boolean(),
  summary: ImportSummary,
  progress: z.object({ processed: z.number().int(), total: z.number().int() }),
  errors: z.array(ImportRowError),
  rows: z.array(ImportRowOutcome),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});

/** The 202 answer of an import submission. */
export const ProviderImportAccepted = z.object({ importId: z.string(), status: z.literal('validating'), dryRun: z.boolean(), mode: ImportMode });

/** Path of /api/v2/provider-imports/:importId. */
export const ProviderImportPath = z.object({ importId: text(200, 1) });

/** Query of GET /api/v2/provider-imports. */
export const ListProviderImportsQuery = z.object({ importId: text(200, 1).optional(), limit: queryInt(1, 500).optional(), cursor: cursor().optional() });
