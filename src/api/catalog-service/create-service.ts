import type { CreateServiceRequest, CreateServiceResponse } from '../../gen/scheduling/v1/catalog_service.js';
import { CreateServiceBody } from '../../contract/schemas/service.js';
import { serviceSlug } from '../../domain/service-slug.js';
import type { Database } from '../../persistence/database.js';
import { newId } from '../../persistence/new-id.js';
import { bumpGraphVersion } from '../../persistence/organization-repository.js';
import { insertServiceRow, toServiceView, type ServiceDoc } from '../../persistence/service-repository.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';
import { queueProviderTime } from '../../application/waitlist/queue-provider-time.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, given } from '../request-problems.js';
import { serviceMessage } from '../messages/service-message.js';
import { slugTaken } from './service-of-caller.js';

/** What CreateService uses. */
export interface CreateServiceDeps {
  db: Database;
  clock: () => Date;
}

const RULES = CreateServiceBody.shape;

/**
 * CreateService: a session type of one provider of the caller's organization (404 PROVIDER_NOT_FOUND, 403 another
 * organization's), its slug derived from the title and unique per provider (409 DUPLICATE_EXTERNAL_ID on `title`);
 * the slot interval defaults to the duration, notice and buffers to 0. Bumps the provider graph version, queues the
 * provider's time for waiting entries and is audited as `service.create`, in one transaction.
 */
export async function createService(
  deps: CreateServiceDeps,
  caller: Caller,
  request: CreateServiceRequest,
): Promise<CreateServiceResponse> {
  const problems = new RequestProblems();
  const providerId = problems.check('providerId', RULES.providerId, given(request.providerId));
  const title = problems.check('title', RULES.title, given(request.title));
  const duration = problems.check('duration', RULES.duration, request.duration);
  const price = problems.check('price', RULES.price, request.price);
  const currency = problems.check('currency', RULES.currency, request.currency);
  const modality = problems.check('modality', RULES.modality, request.modality);
  const slotIntervalMinutes = problems.check(
    'slotIntervalMinutes',
    RULES.slotIntervalMinutes,
    request.slotIntervalMinutes,
  );
  const minimumNoticeMinutes = problems.check(
    'minimumNoticeMinutes',
    RULES.minimumNoticeMinutes,
    request.minimumNoticeMinutes,
  );
  const bufferBeforeMinutes = problems.check(
    'bufferBeforeMinutes',
    RULES.bufferBeforeMinutes,
    request.bufferBeforeMinutes,
  );
  const bufferAfterMinutes = problems.check('bufferAfterMinutes', RULES.bufferAfterMinutes, request.bufferAfterMinutes);
  // The body's rule across fields (a price needs a currency), judged as the contract's schema judges it: only once
  // every required field is there and the modality is one of its options.
  const complete =
    given(request.providerId) !== undefined &&
    given(request.title) !== undefined &&
    request.duration !== undefined &&
    (request.modality === undefined || modality !== undefined);
  if (complete && request.price !== undefined && request.currency === undefined)
    problems.add('currency', 'is required when price is set');
  problems.throwIfAny();
  const slug = serviceSlug(title!);
  const doc: ServiceDoc = {
    title: title!,
    duration: duration!,
    price: price ?? null,
    currency: currency ?? null,
    modality: modality ?? null,
    slotIntervalMinutes: slotIntervalMinutes ?? duration!,
    minimumNoticeMinutes: minimumNoticeMinutes ?? 0,
    bufferBeforeMinutes: bufferBeforeMinutes ?? 0,
    bufferAfterMinutes: bufferAfterMinutes ?? 0,
  };
  const now = deps.clock();
  const view = await deps.db.transaction(async (tx) => {
    const provider = await providerOfCaller(tx, caller, providerId!);
    const row = await insertServiceRow(tx, {
      id: newId('svc', now.getTime()),
      platformId: caller.platformId,
      organizationId: caller.organizationId,
      providerId: provider.id,
      slug,
      doc,
      now,
    });
    if (!row) throw slugTaken(provider.id, slug);
    const created = toServiceView(row);
    await bumpGraphVersion(tx, caller.organizationId);
    // A provider newly offering a session type may have time for its waiting entries.
    await queueProviderTime(tx, { ...caller, providerId: provider.id, now });
    await recordAudit(tx, caller, now, { ...AUDIT_ACTIONS.serviceCreate, resourceId: created.id, after: created });
    return created;
  });
  return { service: serviceMessage(view) };
}
