import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client } from '../helpers/http.js';
import { sentTo, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { findFreePort } from '../../src/launcher/find-free-port.js';
import { escapeHtml } from '../../src/application/email/escape-html.js';
import { EMAIL_MAX_ATTEMPTS, emailRetryDelayMs } from '../../src/persistence/email-outbox.js';

let sink: SmtpSink;
let svc: TestService;
let down: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
const downClock = createTestClock('2026-03-02T12:00:00Z');

test.before(async () => {
  sink = await startSmtpSink();
  const port = await findFreePort();
  // A known port, so PUBLIC_BASE_URL (the links in e-mails) points at this very service.
  svc = await startTestService({
    clock,
    env: { PORT: String(port), SMTP_URL: sink.url, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
  });
  // Port 1 on loopback: nothing listens there, so every connection is refused (a free port could be taken meanwhile).
  down = await startTestService({ clock: downClock, env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
});
test.after.always(async () => {
  await svc?.stop();
  await down?.stop();
  await sink?.stop();
});

type Org = Awaited<ReturnType<typeof newOrganization>>;

/** An organization (live key) with one provider; `book` creates a v1 booking at `time` on 3 March for `email`. */
async function setup(s: TestService, name: string) {
  const o = await newOrganization(s, `${name}-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', displayName: 'Dr. Ada Byron' });
  const book = async (api: Org['api'], time: string, attendee: Record<string, unknown>) => {
    const slots = (
      await api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-03`)
    ).body.slots;
    const slot = slots.find((x: any) => x.time === time);
    return api.post('/api/v1/bookings', {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: slot.id,
      attendee,
    });
  };
  return { o, p, book };
}

const outbox = async (s: TestService, bookingId: string) =>
  (await s.service.deps.db.query('SELECT * FROM email_outbox WHERE booking_id = $1 ORDER BY id', [bookingId])).rows;
const address = (tag: string) => `${tag}-${randomUUID().slice(0, 8)}@example.com`;

/** Polls `check` until it answers a truthy value (bounded). */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('live key: the confirmation e-mail arrives over SMTP and its link (no Authorization) confirms the booking', async (t) => {
  const { o, book } = await setup(svc, 'mail-live');
  const to = address('live');
  const made = await book(o.api, '09:00', { name: 'Grace Hopper', email: to, timezone: 'Europe/London' });
  t.is(made.status, 200, JSON.stringify(made.body));
  const id = made.body.data.id;
  const mail = await sink.waitFor((m) => sentTo(m, to));
  t.is(mail.subject, 'Please confirm your booking: Intake Session with Dr. Ada Byron');
  t.regex(mail.from?.text ?? '', /no-reply@127\.0\.0\.1/);
  const link = `${svc.url}/api/v1/bookings/${id}/confirm?token=${made.body.data.tokenToConfirm}`;
  t.true(mail.text?.includes(link), mail.text);
  t.true(mail.text?.includes('Hello Grace Hopper'));
  // Shown in the attendee's timezone: 09:00 New York is 14:00 in London.
  t.true(mail.text?.includes('Tuesday, March 3, 2026, 2:00 PM - 3:00 PM GMT'), mail.text);
  t.true(String(mail.html).includes(`href="${link}"`));
  const found = /https?:\/\/\S+\/confirm\?token=\S+/.exec(mail.text ?? '')?.[0];
  t.is(found, link);

  const res = await fetch(found!);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.true((await res.text()).includes('Your booking is confirmed'));
  t.is((await o.api.get(`/api/v2/bookings/${id}`)).body.status, 'confirmed');
  const rows = await eventually(async () => {
    const r = await outbox(svc, id);
    return r[0]?.status === 'sent' ? r : undefined;
  });
  t.like(rows?.[0], {
    kind: 'booking_confirmation',
    mode: 'live',
    status: 'sent',
    attempts: 1,
    to_address: to,
    last_error: null,
  });
  t.truthy(rows?.[0].sent_at);
});

test('user input is escaped in the HTML part and kept verbatim in the text part', async (t) => {
  const { o, book } = await setup(svc, 'mail-escape');
  const to = address('escape');
  const name = '<script>alert("x")</script> & \'Bob\'';
  t.is((await book(o.api, '10:00', { name, email: to })).status, 200);
  const mail = await sink.waitFor((m) => sentTo(m, to));
  const html = String(mail.html);
  t.false(html.includes('<script>'));
  t.true(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Bob&#39;'));
  t.true(mail.text?.includes(`Hello ${name},`));
});

test('cancellation notice: rendered in text and HTML and sent', async (t) => {
  const { o, book } = await setup(svc, 'mail-cancel');
  const to = address('cancel');
  const made = await book(o.api, '11:00', { name: 'Alan', email: to });
  await sink.waitFor((m) => sentTo(m, to));
  t.is((await o.api.post(`/api/v1/bookings/${made.body.data.id}/cancel`, { reason: 'Clinic <closed>' })).status, 200);
  const notice = await sink.waitFor((m) => sentTo(m, to) && (m.subject ?? '').startsWith('Booking cancelled'));
  t.is(notice.subject, 'Booking cancelled: Intake Session with Dr. Ada Byron');
  t.true(notice.text?.includes('Reason: Clinic <closed>'));
  t.true(String(notice.html).includes('Reason: Clinic &lt;closed&gt;'));
  t.deepEqual(
    (
      await eventually(async () => {
        const r = await outbox(svc, made.body.data.id);
        return r.every((x) => x.status === 'sent') ? r : undefined;
      })
    )?.map((r) => r.kind),
    ['booking_confirmation', 'booking_cancellation'],
  );
});

test('test key: the e-mail is stored, never sent', async (t) => {
  const { o, book } = await setup(svc, 'mail-test');
  const testKey = (
    await client(svc.url, svc.platformKey).post('/api/v2/api-keys', {
      type: 'organization_test',
      organizationId: o.org.id,
      name: 'test',
    })
  ).body.key as string;
  const to = address('testmode');
  const made = await book(client(svc.url, testKey), '12:00', { name: 'Tess', email: to });
  t.is(made.status, 200, JSON.stringify(made.body));
  const cancel = await client(svc.url, testKey).post(`/api/v1/bookings/${made.body.data.id}/cancel`, {});
  t.is(cancel.status, 200);
  // Several worker polls (every 500 ms) pass without anything going out.
  await new Promise((r) => setTimeout(r, 1500));
  t.false(sink.messages.some((m) => sentTo(m, to)));
  const rows = await outbox(svc, made.body.data.id);
  t.deepEqual(
    rows.map((r) => [r.kind, r.mode, r.status, r.attempts]),
    [
      ['booking_confirmation', 'test', 'stored', 0],
      ['booking_cancellation', 'test', 'stored', 0],
    ],
  );
  t.true(
    rows[0].text_body.includes(`/api/v1/bookings/${made.body.data.id}/confirm?token=${made.body.data.tokenToConfirm}`),
    'the stored message is fully rendered',
  );
});

test.serial(
  'SMTP down: the booking still succeeds and the message retries with backoff until it is given up',
  async (t) => {
    const { o, book } = await setup(down, 'mail-down');
    const made = await book(o.api, '13:00', { name: 'Ken', email: address('down') });
    t.is(made.status, 200, JSON.stringify(made.body));
    const id = made.body.data.id;
    const first = await eventually(async () => {
      const [r] = await outbox(down, id);
      return r?.attempts === 1 && r.last_error ? r : undefined;
    });
    t.truthy(first, 'one failed attempt recorded');
    t.is(first!.status, 'pending');
    t.is(first!.next_attempt_at.getTime(), downClock().getTime() + emailRetryDelayMs(1));
    // Not due yet: nothing happens while the clock stands still.
    await new Promise((r) => setTimeout(r, 1200));
    t.is((await outbox(down, id))[0].attempts, 1);
    t.is(
      (await down.service.deps.db.query('SELECT status FROM bookings WHERE id = $1', [id])).rows[0].status,
      'pending',
      'the booking is untouched',
    );
    for (let attempt = 2; attempt <= EMAIL_MAX_ATTEMPTS; attempt++) {
      downClock.advance(emailRetryDelayMs(attempt - 1));
      // Wait for the failure to be recorded (not just the attempt claimed under its lease) before moving the clock again.
      const row = await eventually(async () => {
        const [r] = await outbox(down, id);
        return r?.attempts === attempt &&
          (r.status === 'failed' || r.next_attempt_at.getTime() === downClock().getTime() + emailRetryDelayMs(attempt))
          ? r
          : undefined;
      }, 15_000);
      t.truthy(row, `attempt ${attempt}`);
    }
    const [last] = await outbox(down, id);
    t.is(last.status, 'failed');
    t.is(last.attempts, EMAIL_MAX_ATTEMPTS);
    t.truthy(last.last_error);
    t.is((await o.api.get(`/api/v1/bookings/${id}`)).body.status, 'pending');
  },
);

test('escapeHtml and the retry schedule', (t) => {
  const cases: [string, string][] = [
    ['a<b>c', 'a&lt;b&gt;c'],
    ['"\'&', '&quot;&#39;&amp;'],
    ['plain', 'plain'],
    ['&amp;', '&amp;amp;'],
  ];
  for (const [input, out] of cases) t.is(escapeHtml(input), out);
  t.deepEqual([1, 2, 3, 4, 12].map(emailRetryDelayMs), [5_000, 10_000, 20_000, 40_000, 3_600_000]);
});
