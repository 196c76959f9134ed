import { ServiceError } from '../../errors/service-error.js';
import type { CreateProviderRequest, CreateProviderResponse } from '../../gen/scheduling/v1/provider_service.js';
import type { Database } from '../../persistence/database.js';
import { requirePlatformKey } from '../../application/authenticate.js';
import type { Caller } from '../../application/caller.js';
import { newProviderState } from '../../application/provider-changes.js';
import { createProviderRecord } from '../../application/provider-writer.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems } from '../request-problems.js';
import { providerMessage } from '../messages/provider-message.js';
import { readCreateProvider } from './provider-input.js';
import { writeContextOf } from './write-context.js';

/** What CreateProvider uses. */
export interface CreateProviderDeps {
  db: Database;
  clock: () => Date;
}

/**
 * CreateProvider (platform key): a provider of the caller's organization (active and searchable unless given; codes
 * normalized and deduplicated), the graph version +1 and `professional.created` in the outbox; a repeated externalId
 * is 409 DUPLICATE_EXTERNAL_ID. Audited as `provider.create` in the same transaction.
 */
export async function createProvider(
  deps: CreateProviderDeps,
  caller: Caller,
  request: CreateProviderRequest,
): Promise<CreateProviderResponse> {
  requirePlatformKey(caller);
  const problems = new RequestProblems();
  const body = readCreateProvider(problems, request);
  problems.throwIfAny();
  const ctx = writeContextOf(caller, deps.clock());
  const view = await deps.db.transaction(async (tx) => {
    const created = await createProviderRecord(tx, ctx, newProviderState(body));
    if (!created)
      throw new ServiceError(
        'DUPLICATE_EXTERNAL_ID',
        'A provider with this externalId already exists in the organization.',
        { field: 'externalId' },
      );
    await recordAudit(tx, caller, ctx.now, { ...AUDIT_ACTIONS.providerCreate, resourceId: created.id, after: created });
    return created;
  });
  return { provider: providerMessage(view) };
}
