import type { Queryable } from './database.js';
import { newId } from './new-id.js';

/** A row of the e-mail outbox. */
export interface OutboxEmailRow {
  id: string;
  platform_id: string;
  organization_id: string;
  booking_id: string | null;
  kind: string;
  mode: 'live' | 'test';
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  status: 'pending' | 'sent' | 'stored' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Date;
}

/** Attempts before a message is given up as `failed`. */
export const EMAIL_MAX_ATTEMPTS = 8;

/** The delay before the next attempt after `attempts` failed ones: 5 s doubling, capped at one hour. */
export function emailRetryDelayMs(attempts: number): number {
  return Math.min(5_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** A rendered message (src/application/email/email-message.ts renders it). */
export interface OutboxMessage {
  subject: string;
  text: string;
  html: string;
}

/**
 * Stores a rendered message in the outbox inside the caller's transaction. `deliver` false (test mode, or no
 * SMTP_URL) stores it as `stored`, never sent; true makes it `pending` for the e-mail worker.
 */
export async function enqueueEmail(
  tx: Queryable,
  e: {
    platformId: string;
    organizationId: string;
    bookingId: string | null;
    kind: string;
    mode: 'live' | 'test';
    to: string;
    message: OutboxMessage;
    deliver: boolean;
    now: Date;
  },
): Promise<string> {
  const id = newId('eml', e.now.getTime());
  await tx.query(
    `INSERT INTO email_outbox (id, platform_id, organization_id, booking_id, kind, mode, to_address, subject, text_body, html_body, status, attempts, next_attempt_at, created_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,0,$12,$12)`,
    [
      id,
      e.platformId,
      e.organizationId,
      e.bookingId,
      e.kind,
      e.mode,
      e.to,
      e.message.subject,
      e.message.text,
      e.message.html,
      e.deliver ? 'pending' : 'stored',
      e.now,
    ],
  );
  return id;
}

/**
 * Claims up to `limit` due `pending` messages for one sending attempt: counts the attempt and leases the row
 * (next_attempt_at moves `leaseMs` ahead) so other processes skip it (`FOR UPDATE SKIP LOCKED`), and a
 * process dying mid-send leaves it to be retried when the lease runs out.
 */
export async function claimDueEmails(
  db: Queryable,
  now: Date,
  opts: { limit: number; leaseMs: number },
): Promise<OutboxEmailRow[]> {
  const r = await db.query(
    `UPDATE email_outbox SET attempts = attempts + 1, next_attempt_at = $2
     WHERE id IN (SELECT id FROM email_outbox WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [now, new Date(now.getTime() + opts.leaseMs), opts.limit],
  );
  return r.rows as OutboxEmailRow[];
}

/** Marks a message sent. */
export async function markEmailSent(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE email_outbox SET status = 'sent', sent_at = $2, last_error = NULL WHERE id = $1 AND status = 'pending'`,
    [id, now],
  );
}

/** Records a failed attempt: schedules the next one with exponential backoff, or gives up after EMAIL_MAX_ATTEMPTS. */
export async function recordEmailFailure(
  db: Queryable,
  row: Pick<OutboxEmailRow, 'id' | 'attempts'>,
  error: string,
  now: Date,
): Promise<void> {
  const failed = row.attempts >= EMAIL_MAX_ATTEMPTS;
  await db.query(
    `UPDATE email_outbox SET status = $2, last_error = $3, next_attempt_at = $4 WHERE id = $1 AND status = 'pending'`,
    [
      row.id,
      failed ? 'failed' : 'pending',
      error.slice(0, 1000),
      new Date(now.getTime() + emailRetryDelayMs(row.attempts)),
    ],
  );
}
