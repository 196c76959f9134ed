import { z } from 'zod';
import {
  CreateProviderImportBody,
  ListProviderImportsQuery,
  ProviderImport,
  ProviderImportAccepted,
  ProviderImportPath,
} from '../schemas/provider-import.js';
import { listOf } from '../schemas/list-envelope.js';
import type { RouteSpec } from '../route.js';
import { protoOneof } from '../proto-view.js';

const importsPage = listOf(ProviderImport);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The answer of ListProviderImports: the job asked for by `importId`, or a page of jobs. */
const importOrPage = protoOneof(z.union([ProviderImport, importsPage]), {
  message: 'ProviderImportOrPage',
  cases: [
    { name: 'provider_import', schema: ProviderImport, test: (v) => isObject(v) && !('data' in v) },
    { name: 'page', schema: importsPage, test: (v) => isObject(v) && Array.isArray(v.data) },
  ],
});

/** Bulk provider import routes (SPEC 4.3, CONTRACT part 3). */
export const providerImportRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/api/v2/provider-imports',
    service: 'ImportService',
    rpc: 'CreateProviderImport',
    tag: 'provider-imports',
    summary: 'Submit up to 500 providers for asynchronous import (platform key).',
    description:
      'Queues an import job and answers 202 with its id at once; rows are validated and applied by a worker in one transaction (`dryRun` rolls it back and only reports). Mode `upsert` (default), `create_only` or `update_only`; `deactivateMissing` deactivates providers absent from the batch.',
    successStatus: 202,
    platformKeyOnly: true,
    body: CreateProviderImportBody,
    response: ProviderImportAccepted,
    errors: ['TOO_MANY_PROVIDERS', 'PLATFORM_KEY_REQUIRED'],
  },
  {
    method: 'GET',
    path: '/api/v2/provider-imports/:importId',
    service: 'ImportService',
    rpc: 'GetProviderImport',
    tag: 'provider-imports',
    summary: 'Read an import job: status, progress, summary, per-row errors and outcomes.',
    description: 'Poll this until `status` is `completed` or `failed`; `progress` counts the rows processed.',
    params: ProviderImportPath,
    response: ProviderImport,
    errors: ['IMPORT_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v2/provider-imports',
    service: 'ImportService',
    rpc: 'ListProviderImports',
    tag: 'provider-imports',
    summary: 'With importId: that job; without: the jobs, newest first.',
    description:
      "Lists the organization's import jobs, or answers one job when `importId` is given (404 IMPORT_NOT_FOUND when it is unknown).",
    query: ListProviderImportsQuery,
    response: importOrPage,
    errors: ['IMPORT_NOT_FOUND'],
  },
];
