import { z } from 'zod';
import { nonNegativeInt } from '../fields.js';

/** The default list envelope `{data, hasMore, nextCursor}` (CONTRACT part 1). */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    hasMore: z.boolean(),
    nextCursor: z.string().nullable(),
    total: nonNegativeInt().optional(),
  });
}

/** The v2 error envelope. */
export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    status: nonNegativeInt(),
    requestId: z.string(),
    field: z.string().optional(),
    recoverable: z.boolean(),
    suggestedAction: z.string().optional(),
    details: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
  }),
});

/** The v1 error envelope: every `/api/v1/` path answers its errors in this form (CONTRACT part 1). */
export const ErrorEnvelopeV1 = z.object({
  error: z.object({ code: z.string(), message: z.string(), status: nonNegativeInt() }),
});
