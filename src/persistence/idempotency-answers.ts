import { ServiceError } from '../errors/service-error.js';
import type { Queryable } from './database.js';

/** Which request an answer belongs to: the organization, the endpoint, the key's SHA-256 and the payload's hash. */
export interface IdempotencyRecord {
  organizationId: string;
  endpoint: string;
  keyHash: string;
  payloadHash: string;
}

/** The answer a write committed with its key, as read back. */
export interface StoredIdempotencyAnswer {
  payloadHash: string;
  answer: unknown;
  createdAt: Date;
}

/**
 * The INSERT of a write's answer for one statement's CTE: one row per row of `from` (e.g. the booking the statement
 * inserted), only when a record is given. Its parameters, numbered from `first`, are answerInsertParams. `answer`
 * makes the stored answer of the answer parameter (default: that answer as it is), reading `from` when the statement
 * adds what only it knows.
 */
export function answerInsertSql(
  from: string,
  first: number,
  answer: (param: string) => string = (param) => `${param}::json`,
): string {
  const p = (i: number) => `$${first + i}`;
  return `INSERT INTO idempotency_answers (organization_id, endpoint, key_hash, payload_hash, answer, created_at)
         SELECT ${p(0)}::text, ${p(1)}::text, ${p(2)}::text, ${p(3)}::text, ${answer(p(4))}, ${p(5)}::timestamptz FROM ${from}
         WHERE ${p(1)}::text IS NOT NULL`;
}

/** The parameters of answerInsertSql: all null without a record (the statement then stores no answer). */
export function answerInsertParams(record: IdempotencyRecord | undefined, answer: unknown, now: Date): unknown[] {
  if (!record) return [null, null, null, null, null, null];
  return [record.organizationId, record.endpoint, record.keyHash, record.payloadHash, JSON.stringify(answer), now];
}

/**
 * Maps the unique violation of a second answer for one key (a twin that ran while Redis had lost the first one's
 * claim) to 409 IDEMPOTENCY_REQUEST_IN_PROGRESS; the write it belonged to is undone with it. Other errors pass.
 */
export function answerConflict(err: unknown): unknown {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23505' && e.constraint === 'idempotency_answers_pkey')
    return new ServiceError('IDEMPOTENCY_REQUEST_IN_PROGRESS');
  return err;
}

/** Stores a write's answer inside its transaction (a unique key: a twin's answer is 409, see answerConflict). */
export async function insertIdempotencyAnswer(
  tx: Queryable,
  record: IdempotencyRecord,
  answer: unknown,
  now: Date,
): Promise<void> {
  try {
    await tx.query({
      name: 'insert-idempotency-answer',
      text: answerInsertSql('(SELECT 1) one', 1),
      values: answerInsertParams(record, answer, now),
    });
  } catch (err) {
    throw answerConflict(err);
  }
}

/** The answer stored for a key, unless older than `notBefore` (CONTRACT part 4 keeps keys 24 hours). */
export async function findIdempotencyAnswer(
  db: Queryable,
  key: Pick<IdempotencyRecord, 'organizationId' | 'endpoint' | 'keyHash'>,
  notBefore: Date,
): Promise<StoredIdempotencyAnswer | undefined> {
  const r = await db.query({
    name: 'find-idempotency-answer',
    text: `SELECT payload_hash, answer, created_at FROM idempotency_answers
           WHERE organization_id = $1 AND endpoint = $2 AND key_hash = $3 AND created_at >= $4::timestamptz`,
    values: [key.organizationId, key.endpoint, key.keyHash, notBefore],
  });
  const row = r.rows[0] as { payload_hash: string; answer: unknown; created_at: Date } | undefined;
  return row && { payloadHash: row.payload_hash, answer: row.answer, createdAt: row.created_at };
}

/**
 * Deletes at most `limit` answers stored before `before` (oldest first; rows another process is deleting are
 * skipped, not waited for). Answers how many it deleted: `limit` means there may be more.
 */
export async function deleteIdempotencyAnswersBefore(db: Queryable, before: Date, limit: number): Promise<number> {
  const r = await db.query({
    name: 'delete-idempotency-answers',
    text: `DELETE FROM idempotency_answers WHERE ctid IN (
             SELECT ctid FROM idempotency_answers WHERE created_at < $1::timestamptz
             ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    values: [before, limit],
  });
  return r.rowCount ?? 0;
}
