// Which audit events a request appended, without a round trip: the request's audit actor object (one per request,
// see auditActor in application/caller.ts) carries the ids of the events prepared with it. The list is a
// non-enumerable symbol property, so it is never serialized, hashed or stored.
const APPENDED = Symbol('audit events prepared with this actor');

/** Makes `actor` note the ids of the audit events later prepared with it; answers the same object. */
export function witnessingActor<T extends object>(actor: T): T {
  Object.defineProperty(actor, APPENDED, { value: [], enumerable: false });
  return actor;
}

/** Notes that the audit event `id` was prepared for insertion with `actor` (a no-op for other actors). */
export function noteAuditAppend(actor: unknown, id: string): void {
  const list = (actor as { [APPENDED]?: string[] } | null)?.[APPENDED];
  list?.push(id);
}

/**
 * The ids of the audit events prepared with a witnessing actor, in order. Prepared is not committed: a statement
 * may fail or its transaction roll back, so a caller that needs "committed" checks the ids against the table.
 */
export function appendedWith(actor: unknown): readonly string[] {
  return (actor as { [APPENDED]?: string[] } | null)?.[APPENDED] ?? [];
}
