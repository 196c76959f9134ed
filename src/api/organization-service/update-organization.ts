import { ServiceError } from '../../errors/service-error.js';
import type {
  UpdateOrganizationRequest,
  UpdateOrganizationResponse,
} from '../../gen/scheduling/v1/organization_service.js';
import { OrganizationPath, UpdateOrganizationBody } from '../../contract/schemas/organization.js';
import type { Database } from '../../persistence/database.js';
import {
  findOrganization,
  updateOrganization as updateOrganizationRow,
} from '../../persistence/organization-repository.js';
import type { OrganizationCache } from '../../application/organization-cache.js';
import { requirePlatformKey } from '../../application/authenticate.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, pathId } from '../request-problems.js';
import { readUpdateMask } from '../update-mask.js';
import { organizationMessage } from '../messages/organization-message.js';
import { readSettings } from './settings-input.js';
import { visibleOrganization } from './visible-organization.js';

/** What UpdateOrganization uses. */
export interface UpdateOrganizationDeps {
  db: Database;
  clock: () => Date;
  organizations: OrganizationCache;
}

/** The fields an update may name in its mask. */
const UPDATABLE = ['name', 'settings'] as const;

/**
 * UpdateOrganization (platform key): changes the name and merges the given settings into the organization's; the
 * fields the `update_mask` names (without one: the fields set) — a named field left unset is refused, since neither can
 * be cleared. Audited as `organization.update` in the same transaction.
 */
export async function updateOrganization(
  deps: UpdateOrganizationDeps,
  caller: Caller,
  request: UpdateOrganizationRequest,
): Promise<UpdateOrganizationResponse> {
  const named = readUpdateMask(request.updateMask, UPDATABLE, {
    name: request.name !== undefined,
    settings: request.settings !== undefined,
  });
  const id = pathId(OrganizationPath.shape.id, request.id);
  const before = await visibleOrganization(deps.organizations, caller, id);
  requirePlatformKey(caller);
  const problems = new RequestProblems();
  let name: string | undefined;
  if (named.has('name')) {
    if (request.name === undefined) problems.add('name', 'Invalid input: expected string, received null');
    else name = problems.check('name', UpdateOrganizationBody.shape.name, request.name);
  }
  let settings = {};
  if (named.has('settings')) {
    if (request.settings === undefined) problems.add('settings', 'Invalid input: expected object, received null');
    else settings = readSettings(problems, request.settings);
  }
  problems.throwIfAny();
  const now = deps.clock();
  const after = await deps.db.transaction(async (tx) => {
    const cur = await findOrganization(tx, id, { forUpdate: true });
    if (!cur) throw new ServiceError('ORGANIZATION_NOT_FOUND');
    const updated = await updateOrganizationRow(tx, id, {
      name: name ?? cur.name,
      settings: { ...cur.settings, ...settings },
      now,
    });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.organizationUpdate,
      resourceId: id,
      before,
      after: updated,
      organizationId: id,
    });
    return updated;
  });
  return { organization: organizationMessage(after) };
}
