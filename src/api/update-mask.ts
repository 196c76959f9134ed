import { ServiceError } from '../errors/service-error.js';
import { protoFieldName } from '../contract/proto-shape.js';

/**
 * The fields an update changes: those its `update_mask` names (by message JSON name, `waitlistOfferTtlSeconds`, or
 * protobuf name, `waitlist_offer_ttl_seconds`), or, without a mask, those set. A path naming no updatable field is
 * 400 VALIDATION_ERROR on `updateMask`, before anything else is read.
 */
export function readUpdateMask<F extends string>(
  mask: string[] | undefined,
  updatable: readonly F[],
  set: Record<F, boolean>,
): Set<F> {
  if (!mask || mask.length === 0) return new Set(updatable.filter((f) => set[f]));
  const named = new Set<F>();
  for (const path of mask) {
    const field = updatable.find((f) => f === path || protoFieldName(f) === path);
    if (field === undefined) {
      const reason = `updateMask names "${path.slice(0, 100)}", which is not a field of this update`;
      throw new ServiceError('VALIDATION_ERROR', `The request could not be decoded: ${reason}`, {
        field: 'updateMask',
        details: [{ field: 'updateMask', code: 'UNDECODABLE', message: reason }],
      });
    }
    named.add(field);
  }
  return named;
}
