import type { ServiceView } from '../../persistence/service-repository.js';
import type { DeletedService, EventType, Service } from '../../gen/scheduling/v1/resources.js';

/** The `Service` message of a service (session type); a price, currency or modality it has not is unset. */
export function serviceMessage(s: ServiceView): Service {
  return {
    id: s.id,
    organizationId: s.organizationId,
    providerId: s.providerId,
    title: s.title,
    slug: s.slug,
    duration: s.duration,
    price: s.price ?? undefined,
    currency: s.currency ?? undefined,
    modality: s.modality ?? undefined,
    slotIntervalMinutes: s.slotIntervalMinutes,
    minimumNoticeMinutes: s.minimumNoticeMinutes,
    bufferBeforeMinutes: s.bufferBeforeMinutes,
    bufferAfterMinutes: s.bufferAfterMinutes,
    createdAt: new Date(s.createdAt),
    updatedAt: new Date(s.updatedAt),
  };
}

/** The `DeletedService` message of a removed service: the service as it was, and `deleted`. */
export function deletedServiceMessage(s: ServiceView): DeletedService {
  return { ...serviceMessage(s), deleted: true };
}

/** The v1 `EventType` message of a service (SPEC part 9: `title`, `length`). */
export function eventTypeMessage(s: ServiceView): EventType {
  return {
    id: s.id,
    providerId: s.providerId,
    slug: s.slug,
    title: s.title,
    length: s.duration,
    price: s.price ?? undefined,
    currency: s.currency ?? undefined,
    modality: s.modality ?? undefined,
  };
}
