import type { z } from 'zod';
import type { ServiceError } from '../errors/service-error.js';

interface MemberRefusal {
  members: readonly string[];
  refusal: (member: string) => ServiceError;
}

const refusals = new WeakMap<z.ZodObject, MemberRefusal>();

/**
 * Declares members a request body of the contract refuses with an error of their own, whatever their value and before
 * anything else of the body is judged (v1 reschedule's combined `datetime`/`start`: 422
 * COMBINED_DATETIME_NOT_ACCEPTED). The schema itself is unchanged (its zod parse and openapi.json are as before): the
 * message has no field to carry such a member, so the gateway refuses it at its edge (request-message-of.ts).
 */
export function refusedMembers<T extends z.ZodObject>(
  schema: T,
  members: readonly string[],
  refusal: (member: string) => ServiceError,
): T {
  refusals.set(schema, { members, refusal });
  return schema;
}

/** The refusal of the first declared member a body carries, if any (undefined for any other body or object). */
export function refusedMemberOf(schema: z.ZodObject, body: Record<string, unknown>): ServiceError | undefined {
  const declared = refusals.get(schema);
  const member = declared?.members.find((m) => Object.hasOwn(body, m));
  return member === undefined ? undefined : declared!.refusal(member);
}
