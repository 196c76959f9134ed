import type { DeleteProviderRequest, DeleteProviderResponse } from '../../gen/scheduling/v1/provider_service.js';
import { ProviderPath } from '../../contract/schemas/provider.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';
import { updateProviderRecord } from '../../application/provider-writer.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { pathId } from '../request-problems.js';
import { providerMessage } from '../messages/provider-message.js';
import { writeContextOf } from './write-context.js';

/** What DeleteProvider uses. */
export interface DeleteProviderDeps {
  db: Database;
  clock: () => Date;
}

/**
 * DeleteProvider: deactivates a provider of the caller's organization (status inactive, searchable false; it stays
 * readable). When that changed something: profileVersion and the graph version +1, `professional.updated`, and
 * `provider.delete` in the audit log, in one transaction; deleting it again changes and records nothing.
 */
export async function deleteProvider(
  deps: DeleteProviderDeps,
  caller: Caller,
  request: DeleteProviderRequest,
): Promise<DeleteProviderResponse> {
  const id = pathId(ProviderPath.shape.id, request.id);
  await providerOfCaller(deps.db, caller, id);
  const ctx = writeContextOf(caller, deps.clock());
  const view = await deps.db.transaction(async (tx) => {
    const cur = await providerOfCaller(tx, caller, id, { forUpdate: true });
    const updated = await updateProviderRecord(tx, ctx, cur, {
      externalId: cur.externalId,
      status: 'inactive',
      searchable: false,
      doc: cur,
    });
    if (updated.changed)
      await recordAudit(tx, caller, ctx.now, {
        ...AUDIT_ACTIONS.providerDelete,
        resourceId: id,
        before: cur,
        after: updated.view,
      });
    return updated.view;
  });
  return { provider: providerMessage(view) };
}
