import type { z } from 'zod';
import { validationError } from '../../errors/service-error.js';
import type { UpdateServiceRequest, UpdateServiceResponse } from '../../gen/scheduling/v1/catalog_service.js';
import { ServicePath, UpdateServiceBody } from '../../contract/schemas/service.js';
import { serviceSlug } from '../../domain/service-slug.js';
import type { Database } from '../../persistence/database.js';
import { bumpGraphVersion } from '../../persistence/organization-repository.js';
import {
  toServiceView,
  updateServiceRow,
  type ServiceDoc,
  type ServiceView,
} from '../../persistence/service-repository.js';
import type { Caller } from '../../application/caller.js';
import { queueProviderTime } from '../../application/waitlist/queue-provider-time.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, pathId } from '../request-problems.js';
import { readUpdateMask } from '../update-mask.js';
import { serviceMessage } from '../messages/service-message.js';
import { serviceOfCaller, slugTaken } from './service-of-caller.js';

/** What UpdateService uses. */
export interface UpdateServiceDeps {
  db: Database;
  clock: () => Date;
}

/** The fields an update may name in its mask (the provider is not one: it cannot be changed). */
const UPDATABLE = [
  'title',
  'duration',
  'price',
  'currency',
  'modality',
  'slotIntervalMinutes',
  'minimumNoticeMinutes',
  'bufferBeforeMinutes',
  'bufferAfterMinutes',
] as const;
type Updatable = (typeof UPDATABLE)[number];

/** The changes an update asks for: a field left out is kept, null clears a nullable one. */
type ServicePatch = Omit<z.output<typeof UpdateServiceBody>, 'providerId'>;

const RULES = UpdateServiceBody.shape;

/** The JSON type of each field, as the refusal of a null names it (the contract's words for REST `null`). */
const NULL_REFUSED: Partial<Record<Updatable, string>> = {
  title: 'string',
  duration: 'number',
  minimumNoticeMinutes: 'number',
  bufferBeforeMinutes: 'number',
  bufferAfterMinutes: 'number',
};

/** The stored fields of a service view. */
function serviceDoc(v: ServiceView): ServiceDoc {
  return {
    title: v.title,
    duration: v.duration,
    price: v.price,
    currency: v.currency,
    modality: v.modality,
    slotIntervalMinutes: v.slotIntervalMinutes,
    minimumNoticeMinutes: v.minimumNoticeMinutes,
    bufferBeforeMinutes: v.bufferBeforeMinutes,
    bufferAfterMinutes: v.bufferAfterMinutes,
  };
}

/**
 * Applies an update to a service's fields: null clears price, currency or modality, and sets the slot interval back
 * to the duration; a slot interval that equalled the duration follows a new one. 400 on `currency` when the result
 * has a price without a currency (as on create).
 */
function patchServiceDoc(cur: ServiceDoc, patch: ServicePatch): ServiceDoc {
  const duration = patch.duration ?? cur.duration;
  const followsDuration = cur.slotIntervalMinutes === cur.duration;
  const next: ServiceDoc = {
    title: patch.title ?? cur.title,
    duration,
    price: patch.price === undefined ? cur.price : patch.price,
    currency: patch.currency === undefined ? cur.currency : patch.currency,
    modality: patch.modality === undefined ? cur.modality : patch.modality,
    slotIntervalMinutes:
      patch.slotIntervalMinutes === undefined
        ? followsDuration
          ? duration
          : cur.slotIntervalMinutes
        : (patch.slotIntervalMinutes ?? duration),
    minimumNoticeMinutes: patch.minimumNoticeMinutes ?? cur.minimumNoticeMinutes,
    bufferBeforeMinutes: patch.bufferBeforeMinutes ?? cur.bufferBeforeMinutes,
    bufferAfterMinutes: patch.bufferAfterMinutes ?? cur.bufferAfterMinutes,
  };
  if (next.price !== null && next.currency === null)
    throw validationError([
      {
        field: 'currency',
        code: 'INVALID',
        message:
          patch.currency === null ? 'cannot be cleared while the service has a price' : 'is required when price is set',
      },
    ]);
  return next;
}

/**
 * Reads the fields an update names, each judged with the contract's rule into `problems`: a named field left unset is
 * REST `null`, which clears a nullable field and is refused for the others.
 */
function readPatch(problems: RequestProblems, named: Set<Updatable>, request: UpdateServiceRequest): ServicePatch {
  const patch: Record<string, unknown> = {};
  for (const field of UPDATABLE) {
    if (!named.has(field)) continue;
    const value = request[field];
    if (value === undefined) {
      const type = NULL_REFUSED[field];
      if (type === undefined) patch[field] = null;
      else problems.add(field, `Invalid input: expected ${type}, received null`);
      continue;
    }
    const checked = problems.check(field, RULES[field] as z.ZodType, value);
    if (checked !== undefined) patch[field] = checked;
  }
  return patch as ServicePatch;
}

/**
 * UpdateService: changes the fields the `update_mask` names (without one: the fields set) of a service of the caller's
 * organization; a new title gives a new slug (409 DUPLICATE_EXTERNAL_ID on `title` when the provider has it). Existence
 * and tenancy (404, 403) are judged before the fields. An update that changes nothing answers the service as it is and
 * records nothing; otherwise it bumps the provider graph version, queues the provider's time for waiting entries and is
 * audited as `service.update`, in one transaction.
 */
export async function updateService(
  deps: UpdateServiceDeps,
  caller: Caller,
  request: UpdateServiceRequest,
): Promise<UpdateServiceResponse> {
  const named = readUpdateMask(
    request.updateMask,
    UPDATABLE,
    Object.fromEntries(UPDATABLE.map((f) => [f, request[f] !== undefined])) as Record<Updatable, boolean>,
  );
  const id = pathId(ServicePath.shape.id, request.id);
  // Tenancy and existence come before the fields, so a foreign id is 403 whatever the update says.
  await serviceOfCaller(deps.db, caller, id);
  const problems = new RequestProblems();
  const patch = readPatch(problems, named, request);
  problems.throwIfAny();
  const now = deps.clock();
  const view = await deps.db.transaction(async (tx) => {
    const cur = await serviceOfCaller(tx, caller, id, { forUpdate: true });
    const next = patchServiceDoc(serviceDoc(cur), patch);
    if (JSON.stringify(next) === JSON.stringify(serviceDoc(cur))) return cur;
    const slug = serviceSlug(next.title);
    const row = await updateServiceRow(tx, id, slug, next, now);
    if (!row) throw slugTaken(cur.providerId, slug);
    const updated = toServiceView(row);
    await bumpGraphVersion(tx, caller.organizationId);
    // A shorter session, interval, notice or buffer may fit waiting entries into the provider's time.
    await queueProviderTime(tx, { ...caller, providerId: updated.providerId, now });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.serviceUpdate,
      resourceId: id,
      before: cur,
      after: updated,
    });
    return updated;
  });
  return { service: serviceMessage(view) };
}
