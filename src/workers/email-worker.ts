import type { Transporter } from 'nodemailer';
import type { Database } from '../persistence/database.js';
import { claimDueEmails, markEmailSent, recordEmailFailure, type OutboxEmailRow } from '../persistence/email-outbox.js';
import type { Worker } from './worker.js';
import { createPollingWorker } from './polling-worker.js';

/** Sends one outbox message; rejects when the SMTP server refuses it or cannot be reached. */
export type SendEmail = (row: OutboxEmailRow) => Promise<void>;

/** The sender address: `no-reply@` the host of PUBLIC_BASE_URL. */
function senderAddress(publicBaseUrl: string): string {
  let host = 'localhost';
  try {
    host = new URL(publicBaseUrl).hostname || host;
  } catch {
    // Keep the fallback host: a malformed base URL must not stop e-mail.
  }
  return `"Scheduling" <no-reply@${host}>`;
}

/**
 * An SMTP sender over nodemailer with short timeouts, so a dead server fails an attempt quickly instead of hanging it.
 * nodemailer (some 40 modules) is loaded at the first message: most processes never send one.
 */
export function createSmtpSender(smtpUrl: string, publicBaseUrl: string): SendEmail & { close(): void } {
  let transport: Promise<Transporter> | undefined;
  let closed = false;
  const transportOf = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => {
      const t = nodemailer.createTransport({
        url: smtpUrl,
        connectionTimeout: 5_000,
        greetingTimeout: 5_000,
        socketTimeout: 15_000,
      });
      if (closed) t.close();
      return t;
    }));
  const from = senderAddress(publicBaseUrl);
  const send = async (row: OutboxEmailRow) => {
    await (
      await transportOf()
    ).sendMail({
      from,
      to: row.to_address,
      subject: row.subject,
      text: row.text_body,
      html: row.html_body,
      headers: { 'X-Service-Email-Id': row.id },
    });
  };
  const close = () => {
    closed = true;
    void transport?.then((t) => t.close());
  };
  return Object.assign(send, { close });
}

/**
 * Polls the e-mail outbox (every `pollMs`, default 500 ms), claims due `pending` messages (several processes
 * share the queue through `FOR UPDATE SKIP LOCKED` and a lease), sends them, and marks each `sent` or schedules
 * a retry with exponential backoff (`failed` after the last attempt). Bookings never wait for it.
 */
export function createEmailWorker(deps: {
  db: Database;
  clock: () => Date;
  send: SendEmail & { close?(): void };
  log: (msg: string, extra?: Record<string, unknown>) => void;
  pollMs?: number;
  batchSize?: number;
}): Worker {
  return createPollingWorker({
    pollMs: deps.pollMs ?? 500,
    async step() {
      const rows = await claimDueEmails(deps.db, deps.clock(), { limit: deps.batchSize ?? 10, leaseMs: 60_000 });
      if (rows.length === 0) return false;
      await Promise.all(
        rows.map(async (row) => {
          try {
            await deps.send(row);
            await markEmailSent(deps.db, row.id, deps.clock());
          } catch (err) {
            deps.log('e-mail send failed', { emailId: row.id, attempt: row.attempts, error: String(err) });
            await recordEmailFailure(deps.db, row, String((err as Error)?.message ?? err), deps.clock()).catch(
              () => undefined,
            );
          }
        }),
      );
      return true;
    },
    onStop: () => deps.send.close?.(),
  });
}
