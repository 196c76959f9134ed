import { ServiceError } from '../../errors/service-error.js';
import type {
  CreateOrganizationRequest,
  CreateOrganizationResponse,
} from '../../gen/scheduling/v1/organization_service.js';
import { CreateOrganizationBody } from '../../contract/schemas/organization.js';
import type { Database } from '../../persistence/database.js';
import { insertOrganization, WAITLIST_OFFER_TTL_DEFAULT } from '../../persistence/organization-repository.js';
import { newId } from '../../persistence/new-id.js';
import { requirePlatformKey } from '../../application/authenticate.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, given } from '../request-problems.js';
import { organizationMessage } from '../messages/organization-message.js';
import { readSettings } from './settings-input.js';

/** What CreateOrganization uses. */
export interface CreateOrganizationDeps {
  db: Database;
  clock: () => Date;
}

/**
 * CreateOrganization (platform key): an organization of the caller's platform with its settings (plan `free`,
 * allowUnverifiable false, no timezone and a 900 s offer lifetime unless given); a repeated externalId is 409
 * DUPLICATE_EXTERNAL_ID. Audited as `organization.create` in the same transaction.
 */
export async function createOrganization(
  deps: CreateOrganizationDeps,
  caller: Caller,
  request: CreateOrganizationRequest,
): Promise<CreateOrganizationResponse> {
  requirePlatformKey(caller);
  const problems = new RequestProblems();
  const externalId = problems.check('externalId', CreateOrganizationBody.shape.externalId, given(request.externalId));
  const name = problems.check('name', CreateOrganizationBody.shape.name, given(request.name));
  const asked = readSettings(problems, request.settings);
  problems.throwIfAny();
  const now = deps.clock();
  const id = newId('org', now.getTime());
  const settings = {
    plan: asked.plan ?? 'free',
    allowUnverifiable: asked.allowUnverifiable ?? false,
    timezone: asked.timezone ?? null,
    waitlistOfferTtlSeconds: asked.waitlistOfferTtlSeconds ?? WAITLIST_OFFER_TTL_DEFAULT,
  };
  const org = await deps.db.transaction(async (tx) => {
    const inserted = await insertOrganization(tx, {
      id,
      platformId: caller.platformId,
      externalId: externalId!,
      name: name!,
      settings,
      now,
    });
    if (!inserted)
      throw new ServiceError('DUPLICATE_EXTERNAL_ID', 'An organization with this externalId already exists.', {
        field: 'externalId',
      });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.organizationCreate,
      resourceId: id,
      after: inserted,
      organizationId: id,
    });
    return inserted;
  });
  return { organization: organizationMessage(org) };
}
