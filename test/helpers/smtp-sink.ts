import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

/** A real SMTP server in the test process that keeps every message it receives, parsed. */
export interface SmtpSink {
  port: number;
  /** `smtp://127.0.0.1:<port>` (plain text: STARTTLS and AUTH are disabled). */
  url: string;
  messages: ParsedMail[];
  /** Waits (bounded) for a message matching `match`; rejects after `timeoutMs`. */
  waitFor(match: (m: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  stop(): Promise<void>;
}

/** Answers whether a parsed message was addressed to `address`. */
export function sentTo(m: ParsedMail, address: string): boolean {
  const to = Array.isArray(m.to) ? m.to : m.to ? [m.to] : [];
  return to.some((a) => a.value.some((v) => v.address?.toLowerCase() === address.toLowerCase()));
}

/** Starts an SMTP sink on a free loopback port. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (m) => {
          messages.push(m);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = (server as unknown as { server: import('node:net').Server }).server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(match, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find(match);
        if (found) return found;
        if (Date.now() > until)
          throw new Error(`no matching e-mail arrived within ${timeoutMs} ms (${messages.length} received)`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
