import { setup } from 'xstate';

/** Status of a provider import: the state of its machine, kept in `provider_imports.status`. */
export type ProviderImportStatus = 'validating' | 'processing' | 'completed' | 'failed';

/** Events of a provider import's lifecycle. */
export type ProviderImportEvent =
  /** A worker claims the job (again, when the worker that held it stopped: its claim went stale). */
  | { type: 'CLAIM' }
  /** Every row was processed in one transaction. */
  | { type: 'FINISH' }
  /** An attempt failed and attempts remain: the job waits to be claimed again. */
  | { type: 'RETRY' }
  /** An attempt failed and none remain. */
  | { type: 'FAIL' };

/**
 * The provider-import lifecycle (SPEC "Provider import", CONTRACT part 3): `validating` on POST (202), `processing`
 * while a worker holds it, then `completed` (emits `provider_import.completed`) or, after the last failed attempt,
 * `failed`. It lives in PostgreSQL, not as an actor: the job queue is the table (claimed with SKIP LOCKED), so the row
 * is its only persisted state; this machine decides each change (`rowStatusAfter`).
 */
export const providerImportMachine = setup({
  types: { events: {} as ProviderImportEvent },
}).createMachine({
  id: 'providerImport',
  initial: 'validating',
  states: {
    validating: { on: { CLAIM: 'processing' } },
    processing: { on: { CLAIM: 'processing', FINISH: 'completed', RETRY: 'validating', FAIL: 'failed' } },
    completed: { type: 'final' },
    failed: { type: 'final' },
  },
});
