import { readFileSync } from 'node:fs';
import { startCountingServer, type CountingServer } from '../helpers/counting-server.js';
import { STAND_IN_PUBLIC } from './forbidden-targets.js';

/** A valid iCalendar feed (a weekly event on Tuesdays 10:00 New York from 2026-03-03). */
export const ICS = readFileSync(new URL('../fixtures/ics/weekly-recurring.ics', import.meta.url), 'utf8');

/** Text that only internal answers carry: a reason or a body shown to a tenant must never contain it. */
export const INTERNAL_MARKER = 'internal-secret-7f3a';

/** What an internal metrics endpoint answers (the leak: "# HELP process_cpu..."). */
export const METRICS_TEXT = `# HELP process_cpu_seconds_total ${INTERNAL_MARKER}\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n`;

/**
 * The forbidden target: a server on 127.0.0.1 (and [::1] at the same port) answering like an internal /metrics
 * endpoint. The guard tests assert it never gets a connection.
 */
export function startMetricsTarget(): Promise<CountingServer> {
  return startCountingServer({
    host: '127.0.0.1',
    alsoIpv6Loopback: true,
    handle: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(METRICS_TEXT);
    },
  });
}

/** A valid feed padded past `bytes` with a long folded DESCRIPTION (the parser would accept it). */
export function paddedIcs(bytes: number): string {
  const line = `DESCRIPTION:${'x'.repeat(bytes)}`.replace(/(.{74})/g, '$1\r\n ');
  return ICS.replace('SUMMARY:', `${line}\r\nSUMMARY:`);
}

/**
 * The "allowed" feed host: a server on STAND_IN_PUBLIC (a loopback address the tests' classifier treats as public)
 * serving:
 * - `/feed.ics` a valid feed (`?type=` sets the content type, `none` leaves it out);
 * - `/redirect?to=URL` a 302 to URL; `/hops?n=N` N redirects in a row before the feed;
 * - `/big` a valid feed of 6 MB with its Content-Length; `/stream` a valid feed streamed without a length, without
 *   end (until the client stops reading or 64 MB);
 * - `/junk` 200 text/calendar carrying the internal marker; `/status?code=N` that status with the marker in its
 *   status text and body.
 * `streamAborted` settles when a `/stream` client hangs up before the server is done.
 */
export async function startFeedServer(): Promise<CountingServer & { streamAborted: Promise<void> }> {
  let aborted!: () => void;
  const streamAborted = new Promise<void>((resolve) => (aborted = resolve));
  const server = await startCountingServer({
    host: STAND_IN_PUBLIC,
    handle: (req, res) => {
      const url = new URL(req.url ?? '/', 'http://feeds.test');
      const q = url.searchParams;
      switch (url.pathname) {
        case '/feed.ics': {
          const type = q.get('type') ?? 'text/calendar';
          res.writeHead(200, type === 'none' ? {} : { 'content-type': type });
          return void res.end(ICS);
        }
        case '/redirect':
          res.writeHead(302, { location: q.get('to') ?? '/' });
          return void res.end();
        case '/hops': {
          const n = Number(q.get('n') ?? 0);
          res.writeHead(
            n > 0 ? 302 : 200,
            n > 0 ? { location: `/hops?n=${n - 1}` } : { 'content-type': 'text/calendar' },
          );
          return void res.end(n > 0 ? undefined : ICS);
        }
        case '/big': {
          const body = paddedIcs(6 * 1024 * 1024);
          res.writeHead(200, { 'content-type': 'text/calendar', 'content-length': Buffer.byteLength(body) });
          return void res.end(body);
        }
        case '/stream': {
          res.writeHead(200, { 'content-type': 'text/calendar' });
          res.write('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nX-PAD:');
          const chunk = Buffer.alloc(64 * 1024, 'x');
          let sent = 0;
          const pump = () => {
            while (sent < 64 * 1024 * 1024) {
              sent += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end('\r\nEND:VCALENDAR\r\n');
          };
          res.once('close', () => {
            if (!res.writableFinished) aborted();
          });
          return pump();
        }
        case '/junk':
          res.writeHead(200, { 'content-type': 'text/calendar' });
          return void res.end(METRICS_TEXT);
        case '/status':
          res.writeHead(Number(q.get('code') ?? 500), `Broken ${INTERNAL_MARKER}`, { 'content-type': 'text/plain' });
          return void res.end(METRICS_TEXT);
        default:
          res.writeHead(404);
          res.end();
      }
    },
  });
  return Object.assign(server, { streamAborted });
}
