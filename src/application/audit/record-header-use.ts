import { ServiceError } from '../../errors/service-error.js';
import { isStorableText } from '../../contract/find-unstorable-input.js';
import { codePoints } from '../../contract/fields.js';
import { newId } from '../../persistence/new-id.js';
import type { AuditStream } from '../../persistence/audit-stream.js';
import { isRedisUnavailable } from '../../persistence/redis-client.js';
import { appendedWith } from '../../persistence/audit-witness.js';
import { auditActor, type Caller } from '../caller.js';
import type { OperationAudit, OperationInput } from '../operation.js';

/** How a call made with Service-Organization-Id ended. */
export type HeaderUseOutcome = { ok: true; replayed: boolean } | { ok: false; errorCode: string };

/**
 * Records a call made with Service-Organization-Id (CONTRACT part 7) before its answer leaves; throws 503
 * SERVICE_UNAVAILABLE when the record cannot be made durable, so no answer leaves unrecorded.
 */
export type RecordHeaderUse = (
  caller: Caller,
  audit: OperationAudit,
  input: OperationInput,
  outcome: HeaderUseOutcome,
) => Promise<void>;

/**
 * The resource a call names by path: its `id`, else its only other path parameter (`:deliveryId`); null when it could
 * not be stored (a refused call may name anything, and one unstorable entry would stop the drain of every later one).
 */
function resourceIdOf(params: Record<string, string>): string | null {
  const id = params.id ?? Object.values(params)[0];
  return id !== undefined && isStorableText(id) && codePoints(id) <= 200 ? id : null;
}

/**
 * Builds the recorder of calls made with Service-Organization-Id. A successful `write` committed its own audit event
 * in its transaction, so it needs nothing more (no round trip at all). Every other call (reads, failures after
 * authentication, idempotent replays, `write-if-changed` calls) appends one event to the Redis audit stream, which
 * the drain worker writes to audit_events in batches; its id is fixed before the append, so a batch written twice is
 * stored once. For a `write-if-changed` call the event carries the ids of the audit events the request prepared
 * (noted on its audit actor), and the drain drops it when one of them exists: the call changed something and its
 * own event records it. Checking existence rather than trusting the note covers a change that was prepared in a
 * transaction rolled back and retried into a no-op. Request ids cannot serve here: a gRPC caller chooses its own.
 * A `write` whose request prepared no event is handled like a `write-if-changed` one, so a wrong `kind` costs a
 * round trip, not a record.
 */
export function createHeaderUseRecorder(deps: { stream: AuditStream; clock: () => Date }): RecordHeaderUse {
  return async (caller, audit, input, outcome) => {
    if (!caller.viaOrganizationHeader) return;
    let unlessEventIds: readonly string[] = [];
    if (outcome.ok && !outcome.replayed && audit.kind !== 'read') {
      const own = appendedWith(auditActor(caller));
      // A `write` that prepared no event of its own is not what its table says: record the call rather than trust it.
      if (audit.kind === 'write' && own.length > 0) return;
      unlessEventIds = own;
    }
    const timestamp = deps.clock();
    const after = !outcome.ok
      ? { error: { code: outcome.errorCode } }
      : outcome.replayed
        ? { idempotentReplay: true }
        : null;
    try {
      await deps.stream.append({
        id: newId('aud', timestamp.getTime()),
        entry: {
          platformId: caller.platformId,
          organizationId: caller.organizationId,
          actor: auditActor(caller),
          action: audit.action,
          resourceType: audit.resourceType,
          resourceId: resourceIdOf(input.params),
          requestId: caller.requestId,
          before: null,
          after,
          timestamp,
        },
        unlessEventIds,
      });
    } catch (err) {
      throw new ServiceError(
        'SERVICE_UNAVAILABLE',
        isRedisUnavailable(err)
          ? 'Redis is unavailable: the request could not be audited.'
          : 'The request could not be audited.',
        { retryAfter: 1, cause: err },
      );
    }
  };
}
