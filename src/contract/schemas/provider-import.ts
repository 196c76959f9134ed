import { z } from 'zod';
import { cursor, instant, nonNegativeInt, pageLimit, text } from '../fields.js';
import { CreateProviderBody } from './provider.js';
import { protoView } from '../proto-view.js';

/** Import modes (SPEC 4.3). */
export const ImportMode = z.enum(['upsert', 'create_only', 'update_only']);

// The published shape of a row is the provider create body's; the request itself only checks that rows are values,
// since a bad row is reported in the job's `errors` rather than failing the whole import.
const { $schema: _, ...providerRowJsonSchema } = z.toJSONSchema(CreateProviderBody, {
  io: 'input',
  unrepresentable: 'any',
  target: 'draft-2020-12',
});

/** One row of an import, documented as the body of POST /api/v2/providers; validated when the job runs. */
export const ProviderImportRow = z.unknown().meta({
  ...providerRowJsonSchema,
  required: ['externalId'],
  description:
    "A provider as in POST /api/v2/providers; a row whose externalId already exists needs only externalId and is applied like PATCH /api/v2/providers/:id. Rows are validated one by one when the job runs: a bad row is listed in the job's `errors` (outcome `invalid`) and the other rows are still imported.",
});

/** Rows one provider import may carry. */
export const PROVIDERS_PER_IMPORT = 500;

/** Body of POST /api/v2/provider-imports; rows are validated one by one when the job runs. */
export const CreateProviderImportBody = z.object({
  mode: ImportMode.optional(),
  dryRun: z.boolean().optional(),
  deactivateMissing: z.boolean().optional(),
  providers: protoView(z.array(ProviderImportRow).max(PROVIDERS_PER_IMPORT), {
    schema: z.array(z.unknown()).meta({
      description:
        "The providers to import, each a JSON object in the JSON form of CreateProvider's fields (camelCase members, `verifiedAt` as sent); a row whose externalId exists needs only externalId and is applied like UpdateProvider. Rows are free-form here and validated one by one when the job runs, with the rules of CreateProvider: a bad row (even one that is no object) is listed in the job's `errors` and the others are imported. At most 500.",
    }),
    name: 'provider_row_values',
    repeated: true,
  }),
});

/** Per-row error of an import. */
export const ImportRowError = z.object({
  row: nonNegativeInt(),
  externalId: z.string().nullable(),
  field: z.string(),
  code: z.string(),
  message: z.string(),
});

/** Per-row outcome of an import. */
export const ImportRowOutcome = z.object({
  row: nonNegativeInt().nullable(),
  externalId: z.string().nullable(),
  providerId: z.string().nullable(),
  outcome: z.enum(['created', 'updated', 'unchanged', 'invalid', 'deactivated']),
});

/** Import summary counters. */
export const ImportSummary = z.object({
  received: nonNegativeInt(),
  created: nonNegativeInt(),
  updated: nonNegativeInt(),
  unchanged: nonNegativeInt(),
  invalid: nonNegativeInt(),
  deactivated: nonNegativeInt(),
});

/** An import job as answered. */
export const ProviderImport = z.object({
  importId: z.string(),
  status: z.enum(['validating', 'processing', 'completed', 'failed']),
  dryRun: z.boolean(),
  mode: ImportMode,
  deactivateMissing: z.boolean(),
  summary: ImportSummary,
  progress: z.object({ processed: nonNegativeInt(), total: nonNegativeInt() }),
  errors: z.array(ImportRowError),
  rows: z.array(ImportRowOutcome),
  createdAt: instant(),
  completedAt: instant().nullable(),
});

/** The 202 answer of an import submission. */
export const ProviderImportAccepted = z.object({
  importId: z.string(),
  status: z.literal('validating'),
  dryRun: z.boolean(),
  mode: ImportMode,
});

/** Path of /api/v2/provider-imports/:importId. */
export const ProviderImportPath = z.object({ importId: text(200, 1) });

/** Query of GET /api/v2/provider-imports. */
export const ListProviderImportsQuery = z.object({
  importId: text(200, 1).optional(),
  limit: pageLimit(),
  cursor: cursor().optional(),
});
