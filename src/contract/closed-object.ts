import type { z } from 'zod';

const refusals = new WeakMap<z.ZodObject, (member: string) => string>();

/**
 * Declares that an object of the contract refuses members it does not name (a schedule's `days` takes the seven
 * weekdays, no `funday`), with the message each such member is refused with. The schema itself is unchanged (its zod
 * parse and openapi.json are as before): the gateway, which maps the object onto a message that could not carry such a
 * member, refuses it at its edge (request-message-of.ts).
 */
export function closedObject<T extends z.ZodObject>(schema: T, refusal: (member: string) => string): T {
  refusals.set(schema, refusal);
  return schema;
}

/** How an object declared closed refuses a member it does not name; undefined for any other object. */
export function unknownMemberRefusal(schema: z.ZodObject): ((member: string) => string) | undefined {
  return refusals.get(schema);
}
