import { ServiceError } from '../../errors/service-error.js';
import type { UpdateProviderRequest, UpdateProviderResponse } from '../../gen/scheduling/v1/provider_service.js';
import { ProviderPath } from '../../contract/schemas/provider.js';
import type { Database } from '../../persistence/database.js';
import { externalIdTaken } from '../../persistence/provider-repository.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';
import { patchProviderState } from '../../application/provider-changes.js';
import { updateProviderRecord } from '../../application/provider-writer.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, pathId } from '../request-problems.js';
import { readUpdateMask } from '../update-mask.js';
import { providerMessage } from '../messages/provider-message.js';
import { readProviderUpdate, UPDATABLE_PROVIDER_FIELDS, updatedFields } from './provider-input.js';
import { writeContextOf } from './write-context.js';

/** What UpdateProvider uses. */
export interface UpdateProviderDeps {
  db: Database;
  clock: () => Date;
}

/**
 * UpdateProvider: changes the fields its `update_mask` names (without one: the fields set); a named field left unset is
 * cleared where the contract lets it be (REST `null`) and refused elsewhere. The mask is read first, then the provider
 * (404, 403), then the fields. When something changed: profileVersion and the graph version +1,
 * `professional.updated`, and `provider.update` in the audit log, in one transaction; a taken externalId is 409.
 */
export async function updateProvider(
  deps: UpdateProviderDeps,
  caller: Caller,
  request: UpdateProviderRequest,
): Promise<UpdateProviderResponse> {
  const named = readUpdateMask(request.updateMask, UPDATABLE_PROVIDER_FIELDS, updatedFields(request));
  const id = pathId(ProviderPath.shape.id, request.id);
  await providerOfCaller(deps.db, caller, id);
  const problems = new RequestProblems();
  const patch = readProviderUpdate(problems, request, named);
  problems.throwIfAny();
  const ctx = writeContextOf(caller, deps.clock());
  const view = await deps.db.transaction(async (tx) => {
    const cur = await providerOfCaller(tx, caller, id, { forUpdate: true });
    const next = patchProviderState(cur, patch);
    if (next.externalId !== cur.externalId && (await externalIdTaken(tx, caller.organizationId, next.externalId)))
      throw new ServiceError(
        'DUPLICATE_EXTERNAL_ID',
        'A provider with this externalId already exists in the organization.',
        { field: 'externalId' },
      );
    const updated = await updateProviderRecord(tx, ctx, cur, next);
    if (updated.changed)
      await recordAudit(tx, caller, ctx.now, {
        ...AUDIT_ACTIONS.providerUpdate,
        resourceId: id,
        before: cur,
        after: updated.view,
      });
    return updated.view;
  });
  return { provider: providerMessage(view) };
}
