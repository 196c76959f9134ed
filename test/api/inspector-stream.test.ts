import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, status, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { InspectorServiceClient } from '../../src/gen/scheduling/v1/inspector_service.js';
import { actorKeys } from '../../src/persistence/redis-keys.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client, request } from '../helpers/http.js';
import { scrapeMetrics, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';
import { errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';
import { restOfResponse, typedRequest } from '../helpers/typed-messages.js';

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock, env: { METRICS_TOKEN: TEST_METRICS_TOKEN } });
});
test.after.always(async () => {
  await svc?.stop();
});

type Org = Awaited<ReturnType<typeof newOrganization>>;
const uniq = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
const attendee = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };

/** An organization with one provider, and a v1 booking (pending) on Tuesday at `time`. */
async function pendingBooking(name: string, time = '10:00') {
  const o = await newOrganization(svc, uniq(name));
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const slots = (
    await o.api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-03`)
  ).body.slots;
  const slot = slots.find((s: any) => s.time === time);
  const created = await o.api.post('/api/v1/bookings', {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId: slot.id,
    attendee,
  });
  if (created.status !== 200) throw new Error(JSON.stringify(created.body));
  return { o, p, id: created.body.data.id as string, token: created.body.data.tokenToConfirm as string };
}

/** Actors followed right now, as GET /metrics reports them. */
async function watchers(): Promise<number> {
  const text = await scrapeMetrics(svc.url, TEST_METRICS_TOKEN);
  return Number(/^scheduling_inspector_actor_watchers (\d+)$/m.exec(text)?.[1]);
}

/** Waits until `read` answers `want` or `withinMs` pass (a deadline, not a sleep). */
async function until<T>(read: () => Promise<T>, want: T, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  let v = await read();
  while (v !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    v = await read();
  }
  return v;
}

interface SseEvent {
  event: string;
  data: string;
}

/** Opens an SSE route with fetch (as the console does) and reads its events one at a time, each within a deadline. */
async function openSse(path: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const res = await fetch(`${svc.url}${path}`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    void (async () => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const lines = block.split('\n');
            if (lines.every((l) => l.startsWith(':'))) {
              comments.push(block);
              continue;
            }
            events.push({
              event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message',
              data: lines
                .filter((l) => l.startsWith('data: '))
                .map((l) => l.slice(6))
                .join('\n'),
            });
          }
          wake?.();
        }
      } catch {
        /* aborted */
      }
      ended = true;
      wake?.();
    })();
  }
  return {
    res,
    comments,
    get ended() {
      return ended;
    },
    /** The next event, which must come within `withinMs`. */
    async next(withinMs: number, label = 'event'): Promise<SseEvent> {
      const deadline = Date.now() + withinMs;
      while (events.length === 0) {
        if (ended) throw new Error(`${label}: the stream ended`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`${label}: no event within ${withinMs} ms`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, left);
        });
      }
      return events.shift()!;
    },
    close: () => abort.abort(),
  };
}

const bearer = (o: Org) => ({ authorization: `Bearer ${o.key}` });

test.serial(
  'SSE: the first view at once, then confirm and cancel each arrive within a second, in order; closing stops the watch',
  async (t) => {
    const { o, id, token } = await pendingBooking('sse');
    t.is(await watchers(), 0);
    const stream = await openSse(`/api/v2/inspector/actors/booking/${id}/stream`, bearer(o));
    try {
      t.is(stream.res.status, 200);
      t.is(stream.res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      t.is(stream.res.headers.get('cache-control'), 'no-cache');
      t.is(stream.res.headers.get('x-accel-buffering'), 'no');
      t.truthy(stream.res.headers.get('ratelimit-limit'), "the RateLimit state comes with the stream's headers");
      t.truthy(stream.res.headers.get('x-service-request-id'));

      const first = await stream.next(1000, 'first view');
      t.is(first.event, 'actor');
      const view0 = JSON.parse(first.data);
      t.like(view0, { kind: 'booking', id, state: 'pending', revision: 1, status: 'active' });
      t.deepEqual(
        view0,
        (await o.api.get(`/api/v2/inspector/actors/booking/${id}`)).body,
        'each event carries the GET view',
      );
      t.is(await watchers(), 1);

      const confirmed = await request(svc.url, 'GET', `/api/v1/bookings/${id}/confirm?token=${token}`, {
        headers: { accept: 'application/json' },
      });
      t.deepEqual(confirmed.body, { bookingId: id, status: 'confirmed' });
      const view1 = JSON.parse((await stream.next(1000, 'view after confirm')).data);
      t.like(view1, { state: 'confirmed', revision: 2 });
      t.deepEqual(view1.transitionsTaken, [
        { n: 1, from: 'booking.pending', event: 'CONFIRM', to: 'booking.confirmed' },
      ]);

      t.is((await o.api.post(`/api/v1/bookings/${id}/cancel`, { reason: 'changed plans' })).status, 200);
      const next = await stream.next(1000, 'view after cancel');
      t.is(next.event, 'actor');
      const view2 = JSON.parse(next.data);
      t.like(view2, { state: 'cancelled', status: 'done', revision: 3 });
      t.deepEqual(
        view2.history.map((h: any) => h.event),
        ['create', 'CONFIRM', 'CANCEL'],
      );
      t.like(view2.history[2].causedBy, { type: 'key', keyType: 'organization_live' });
    } finally {
      stream.close();
    }
    // The gateway cancels the gRPC call when the client goes away, and the server stops polling.
    t.is(await until(watchers, 0, 2000), 0);
  },
);

test.serial('SSE: refusals before the stream are JSON error envelopes with their status', async (t) => {
  const { o, id } = await pendingBooking('sse-refused');
  const other = await newOrganization(svc, uniq('sse-other'));
  const forbidden = await openSse(`/api/v2/inspector/actors/booking/${id}/stream`, bearer(other));
  t.is(forbidden.res.status, 403);
  t.regex(forbidden.res.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await forbidden.res.json()) as any;
  t.like(body.error, { code: 'FORBIDDEN', status: 403 });
  t.truthy(body.error.requestId);
  t.truthy(forbidden.res.headers.get('ratelimit-remaining'));

  const cases: [string, Record<string, string>, number, string][] = [
    [`/api/v2/inspector/actors/booking/bkg_missing/stream`, bearer(o), 404, 'BOOKING_NOT_FOUND'],
    [`/api/v2/inspector/actors/widget/${id}/stream`, bearer(o), 400, 'VALIDATION_ERROR'],
    [`/api/v2/inspector/actors/booking/${id}/stream`, {}, 401, 'UNAUTHENTICATED'],
  ];
  for (const [path, headers, st, code] of cases) {
    const r = await openSse(path, headers);
    t.is(r.res.status, st, path);
    t.is(((await r.res.json()) as any).error.code, code, path);
  }
  // A platform key acting in the organization follows it too.
  const platform = await openSse(`/api/v2/inspector/actors/booking/${id}/stream`, {
    authorization: `Bearer ${svc.platformKey}`,
    'service-organization-id': o.org.id,
  });
  try {
    t.like(JSON.parse((await platform.next(1000)).data), { id, state: 'pending' });
  } finally {
    platform.close();
  }
  t.is(await until(watchers, 0, 2000), 0);
});

test.serial('SSE: an actor that leaves the store while followed ends the stream with an error event', async (t) => {
  const { o, id } = await pendingBooking('sse-gone', '11:00');
  const stream = await openSse(`/api/v2/inspector/actors/booking/${id}/stream`, bearer(o));
  try {
    t.is((await stream.next(1000)).event, 'actor');
    await svc.service.deps.redis.del(actorKeys('booking', id).state);
    // No step announces a deletion or an expiry: the follow's fallback read (every 5 s without a step) finds it.
    const end = await stream.next(7000);
    t.is(end.event, 'error');
    t.like(JSON.parse(end.data).error, { code: 'BOOKING_NOT_FOUND', status: 404 });
    t.is(await until(async () => stream.ended, true, 1000), true, 'the server ends the response');
  } finally {
    stream.close();
  }
  t.is(await until(watchers, 0, 2000), 0);
});

test.serial(
  'SSE: a key revoked while its stream is open gets no further view: the next change ends the stream with 401',
  async (t) => {
    const { o, id, token } = await pendingBooking('sse-revoked', '13:00');
    const desk = (
      await client(svc.url, await livePlatformKey(svc)).post('/api/v2/api-keys', {
        type: 'organization_live',
        organizationId: o.org.id,
        name: 'desk',
      })
    ).body;
    const stream = await openSse(`/api/v2/inspector/actors/booking/${id}/stream`, {
      authorization: `Bearer ${desk.key}`,
    });
    try {
      t.is((await stream.next(1000)).event, 'actor');
      t.truthy((await o.platform.delete(`/api/v2/api-keys/${desk.id}`)).body.revokedAt);
      t.is(
        (
          await request(svc.url, 'GET', `/api/v1/bookings/${id}/confirm?token=${token}`, {
            headers: { accept: 'application/json' },
          })
        ).status,
        200,
      );
      const end = await stream.next(2000, 'after revocation');
      t.is(end.event, 'error', 'the confirmed view is not sent to a revoked key');
      t.like(JSON.parse(end.data).error, { code: 'UNAUTHENTICATED', status: 401 });
      t.is(await until(async () => stream.ended, true, 1000), true);
    } finally {
      stream.close();
    }
    t.is(await until(watchers, 0, 2000), 0);
  },
);

test.serial(
  'gRPC WatchActor: the same views through a grpc-js client, refusals as statuses, and cancel ends the watch',
  async (t) => {
    const o = await newOrganization(svc, uniq('grpc-watch'));
    const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
    const r = (
      await o.api.post(
        '/api/v2/resolutions',
        { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 1 },
        { 'idempotency-key': randomUUID() },
      )
    ).body;
    const inspector = new InspectorServiceClient(svc.grpcTarget, credentials.createInsecure());
    const md = new Metadata();
    md.set('authorization', `Bearer ${o.key}`);
    /** Opens a watch and hands out its messages, headers and end one at a time, each within a deadline. */
    const watch = (params: Record<string, string>) => {
      const call: ClientReadableStream<unknown> = inspector.watchActor(typedRequest('WatchActor', { params }), md);
      const queue: ({ view: any } | { error: ServiceError })[] = [];
      let headers: Metadata | undefined;
      let wake: (() => void) | undefined;
      call.on('metadata', (m) => {
        headers = m;
      });
      call.on('data', (m: unknown) => {
        queue.push({ view: restOfResponse('WatchActor', m) });
        wake?.();
      });
      call.on('error', (error: ServiceError) => {
        queue.push({ error });
        wake?.();
      });
      return {
        call,
        headers: () => headers,
        async next(withinMs: number, label: string) {
          const deadline = Date.now() + withinMs;
          while (queue.length === 0) {
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`${label}: no message within ${withinMs} ms`);
            await new Promise<void>((res) => {
              wake = res;
              setTimeout(res, left);
            });
          }
          return queue.shift()!;
        },
      };
    };
    try {
      const w = watch({ kind: 'resolution', id: r.resolutionId });
      const first = await w.next(2000, 'first view');
      t.true('view' in first);
      t.deepEqual(
        (first as { view: any }).view,
        (await o.api.get(`/api/v2/inspector/actors/resolution/${r.resolutionId}`)).body,
      );
      t.truthy(w.headers()?.get('rest-header-ratelimit-limit')[0]);
      t.is(await watchers(), 1);

      const hold = await o.api.post(`/api/v2/resolutions/${r.resolutionId}/options/${r.options[0].optionId}/hold`, {
        ttlSeconds: 60,
      });
      t.is(hold.status, 200, JSON.stringify(hold.body));
      const second = await w.next(2000, 'view after the hold');
      t.like((second as { view: any }).view, {
        revision: 2,
        history: [{ event: 'create' }, { event: 'HOLD_STARTED' }],
      });

      w.call.cancel();
      const cancelled = await w.next(2000, 'status after cancel');
      t.is((cancelled as { error: ServiceError }).error.code, status.CANCELLED);
      t.is(await until(watchers, 0, 2000), 0, "cancelling the call stops the server's polling");

      const unknown = await watch({ kind: 'resolution', id: 'res_unknown' }).next(2000, 'refusal');
      t.is((unknown as { error: ServiceError }).error.code, status.NOT_FOUND);
      t.is(errorCodeOfTrailers((unknown as { error: ServiceError }).error.metadata), 'RESOLUTION_NOT_FOUND');
      const other = await newOrganization(svc, uniq('grpc-other'));
      const otherMd = new Metadata();
      otherMd.set('authorization', `Bearer ${other.key}`);
      const denied = await new Promise<ServiceError>((resolve) => {
        const call = inspector.watchActor(
          typedRequest('WatchActor', { params: { kind: 'resolution', id: r.resolutionId } }),
          otherMd,
        );
        call.on('data', () => resolve(new Error('a message was sent') as ServiceError));
        call.on('error', resolve);
      });
      t.is(denied.code, status.PERMISSION_DENIED);
      t.is(errorCodeOfTrailers(denied.metadata), 'FORBIDDEN');
    } finally {
      inspector.close();
    }
    t.is(await until(watchers, 0, 2000), 0);
  },
);

test.serial('stopping a service ends its open watches with UNAVAILABLE instead of waiting for them', async (t) => {
  const { o, id } = await pendingBooking('shutdown', '13:00');
  const second = await startTestService({ stores: svc.stores, clock, platformKey: svc.platformKey });
  const inspector = new InspectorServiceClient(second.grpcTarget, credentials.createInsecure());
  const md = new Metadata();
  md.set('authorization', `Bearer ${o.key}`);
  try {
    const call = inspector.watchActor(typedRequest('WatchActor', { params: { kind: 'booking', id } }), md);
    const ended = new Promise<ServiceError>((resolve) => call.on('error', resolve));
    await new Promise((resolve) => call.once('data', resolve));
    const sse = await fetch(
      `http://127.0.0.1:${second.service.httpPort}/api/v2/inspector/actors/booking/${id}/stream`,
      { headers: bearer(o) },
    );
    t.is(sse.status, 200);
    const stopped = Date.now();
    await second.stop();
    t.true(Date.now() - stopped < 5000, 'stop does not wait for the watches');
    const err = await ended;
    t.is(err.code, status.UNAVAILABLE);
    t.is(errorCodeOfTrailers(err.metadata), 'SERVICE_UNAVAILABLE');
  } finally {
    inspector.close();
  }
});

test('the unary GET view is unchanged beside the stream', async (t) => {
  const { o, id } = await pendingBooking('unary', '12:00');
  const res = await client(svc.url, o.key).get(`/api/v2/inspector/actors/booking/${id}`);
  t.is(res.status, 200);
  t.like(res.body, { id, state: 'pending' });
});
