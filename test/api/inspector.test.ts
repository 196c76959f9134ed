import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import {
  bookingActorKind,
  holdActorKind,
  resolutionActorKind,
  waitlistEntryActorKind,
} from '../../machines/machine-versions.js';
import { InspectorServiceClient } from '../../src/gen/scheduling/v1/inspector_service.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client } from '../helpers/http.js';
import { errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';
import { restOfResponse, typedRequest } from '../helpers/typed-messages.js';

let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };

/** An organization with one provider and a fresh resolution. */
async function resolved(name: string) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 2 },
    idem(),
  );
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return { o, r: r.body, requestId: r.headers.get('x-service-request-id')! };
}

/** The id of the organization's only key (the one `newOrganization` made). */
const keyIdOf = async (orgId: string) =>
  (await svc.service.deps.db.query('SELECT id FROM api_keys WHERE organization_id = $1', [orgId])).rows[0].id as string;

/** Polls `read` until `done` holds (timers fire on the worker's own schedule), at most ~4 s. */
async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 40 && !done(v); i++) {
    await new Promise((res) => setTimeout(res, 100));
    v = await read();
  }
  return v;
}

/** Every state node id of a machine, read by walking the machine object (not the catalogue code under test). */
function nodeIds(node: AnyStateNode): string[] {
  return Object.values(node.states as Record<string, AnyStateNode>).flatMap((c) => [c.id, ...nodeIds(c)]);
}

/** Every (source, event, target) of a machine, read from its state nodes' transition maps. */
function edges(machine: AnyStateMachine): string[] {
  const walk = (n: AnyStateNode): string[] => [
    ...[...n.transitions.values()]
      .flat()
      .map((d) => `${n.id} ${d.eventType} ${d.target?.map((x: AnyStateNode) => x.id).join(',') ?? '-'}`),
    ...(n.always ?? []).map((d) => `${n.id} always ${d.target?.map((x: AnyStateNode) => x.id).join(',') ?? '-'}`),
    ...Object.values(n.states as Record<string, AnyStateNode>).flatMap(walk),
  ];
  return walk(machine.root).sort();
}

/** The same edges as `xstate/graph` draws them (eventless ones left out; a targetless one loops on its source). */
function graphEdges(machine: AnyStateMachine): string[] {
  const walk = (n: DirectedGraphNode): string[] => [
    ...n.edges.map((e) => `${e.source.id} ${e.transition.eventType} ${e.target.id}`),
    ...n.children.flatMap(walk),
  ];
  return walk(toDirectedGraph(machine)).sort();
}

const flatStates = (states: { id: string; states: unknown[] }[]): string[] =>
  states.flatMap((s) => [s.id, ...flatStates(s.states as never)]);

test('the catalogue lists the four machines as their definitions declare them', async (t) => {
  const { o } = await resolved('catalogue');
  const res = await o.api.get('/api/v2/inspector/machines');
  t.is(res.status, 200, JSON.stringify(res.body));
  const byId = new Map<string, any>(res.body.machines.map((m: { id: string }) => [m.id, m]));
  t.deepEqual([...byId.keys()], ['resolution', 'hold', 'booking', 'waitlist_entry']);
  for (const kind of [resolutionActorKind, holdActorKind, bookingActorKind, waitlistEntryActorKind]) {
    const m = byId.get(kind.machine.id);
    t.is(m.version, kind.version);
    t.deepEqual(flatStates(m.states).sort(), nodeIds(kind.machine.root).sort(), kind.name);
    t.deepEqual([...m.events].sort(), [...new Set(kind.machine.events as string[])].sort(), kind.name);
    t.deepEqual(
      m.transitions
        .map((x: any) => `${x.source} ${x.event === 'always' ? 'always' : x.event} ${x.target ?? '-'}`)
        .sort(),
      edges(kind.machine),
      kind.name,
    );
    t.deepEqual(
      m.transitions
        .filter((x: any) => x.event !== 'always')
        .map((x: any) => `${x.source} ${x.event} ${x.target ?? x.source}`)
        .sort(),
      graphEdges(kind.machine),
      kind.name,
    );
    t.true(m.dot.startsWith(`digraph "${kind.machine.id}" {`));
    for (const id of nodeIds(kind.machine.root)) t.true(m.dot.includes(`"${id}"`), id);
  }
  // Guards by name, combinators spelled out; targetless transitions stay null.
  t.like(
    byId.get('hold').transitions.find((x: any) => x.event === 'EXPIRE'),
    { source: 'hold.active', target: 'hold.expired', guard: 'isPastExpiry', actions: ['recordExpiry'] },
  );
  t.like(
    byId.get('resolution').transitions.find((x: any) => x.event === 'HOLD_STARTED'),
    { target: null, guard: 'and(hasNoActiveHold, isNotConfirmed, isBeforeExpiry)' },
  );
  t.like(
    byId.get('resolution').transitions.find((x: any) => x.event === 'always'),
    { source: 'resolution.created', target: 'resolution.resolved', guard: 'hasOptions' },
  );
  // One machine by name; an unknown name is a validation error.
  t.deepEqual((await o.api.get('/api/v2/inspector/machines/hold')).body, byId.get('hold'));
  const bad = await o.api.get('/api/v2/inspector/machines/nope');
  t.is(bad.status, 400);
  t.is(bad.body.error.code, 'VALIDATION_ERROR');
  t.is(bad.body.error.field, 'machine');
});

test('resolution → hold → confirm: each actor shows its state, history in order, timers and the transitions taken', async (t) => {
  const { o, r, requestId: resolveReq } = await resolved('flow');
  const option = r.options[0];
  const held = await o.api.post(`/api/v2/resolutions/${r.resolutionId}/options/${option.optionId}/hold`, {
    ttlSeconds: 120,
  });
  const hold = held.body;
  const confirmed = await o.api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { optionId: option.optionId, holdId: hold.holdId, customer },
    idem(),
  );
  const booking = confirmed.body;
  t.is(booking.status, 'confirmed', JSON.stringify(booking));
  const by = (requestId: string | null) => ({ type: 'key', keyId, keyType: 'organization_live', requestId });
  const keyId = await keyIdOf(o.org.id);
  const [holdReq, confirmReq] = [
    held.headers.get('x-service-request-id'),
    confirmed.headers.get('x-service-request-id'),
  ];

  const res = await o.api.get(`/api/v2/inspector/actors/resolution/${r.resolutionId}`);
  t.is(res.status, 200, JSON.stringify(res.body));
  const rv = res.body;
  t.like(rv, {
    kind: 'resolution',
    id: r.resolutionId,
    machine: 'resolution',
    machineVersion: resolutionActorKind.version,
    state: 'resolved',
    activeStates: ['resolution.resolved'],
    status: 'active',
  });
  t.like(rv.snapshot, {
    resolutionId: r.resolutionId,
    organizationId: o.org.id,
    bookingId: booking.id,
    activeHoldId: null,
  });
  t.deepEqual(
    rv.history.map((h: any) => [h.seq, h.event, h.from, h.to]),
    [
      [1, 'create', null, 'resolved'],
      [2, 'HOLD_STARTED', 'resolved', 'resolved'],
      [3, 'CONFIRMED', 'resolved', 'resolved'],
    ],
  );
  t.is(rv.revision, 3);
  t.deepEqual(
    rv.history.map((h: any) => h.causedBy),
    [by(resolveReq), by(holdReq), by(confirmReq)],
  );
  t.deepEqual(rv.transitionsTaken, [
    { n: 1, from: 'resolution.resolved', event: 'HOLD_STARTED', to: 'resolution.resolved' },
    { n: 2, from: 'resolution.resolved', event: 'CONFIRMED', to: 'resolution.resolved' },
  ]);
  t.true(
    rv.timers.some((x: any) => x.event === 'expire' && x.pending === true),
    JSON.stringify(rv.timers),
  );

  const hv = (await o.api.get(`/api/v2/inspector/actors/hold/${hold.holdId}`)).body;
  t.like(hv, { kind: 'hold', state: 'consumed', activeStates: ['hold.consumed'], status: 'done', revision: 2 });
  t.like(hv.snapshot, { holdId: hold.holdId, bookingId: booking.id, consumedAt: clock().toISOString() });
  t.deepEqual(
    hv.history.map((h: any) => [h.event, h.from, h.to, h.at]),
    [
      ['create', null, 'active', clock().toISOString()],
      ['CONFIRM', 'active', 'consumed', clock().toISOString()],
    ],
  );
  t.deepEqual(
    hv.history.map((h: any) => h.causedBy),
    [by(holdReq), by(confirmReq)],
  );
  t.deepEqual(hv.transitionsTaken, [{ n: 1, from: 'hold.active', event: 'CONFIRM', to: 'hold.consumed' }]);
  // Consumed is final: its `expire` timer can change nothing, so it is not pending.
  t.deepEqual(hv.timers, [{ event: 'expire', dueAt: hold.expiresAt, pending: false }]);

  const bv = (await o.api.get(`/api/v2/inspector/actors/booking/${booking.id}`)).body;
  t.like(bv, {
    kind: 'booking',
    id: booking.id,
    machine: 'booking',
    state: 'confirmed',
    activeStates: ['booking.confirmed'],
    status: 'active',
    revision: 1,
  });
  t.deepEqual(
    bv.history.map((h: any) => [h.seq, h.event, h.to]),
    [[1, 'create', 'confirmed']],
  );
  t.deepEqual(bv.history[0].causedBy, by(confirmReq));
  t.deepEqual(bv.transitionsTaken, []);
  t.deepEqual(
    bv.timers.map((x: any) => x.event),
    ['complete'],
  );

  // A platform key acting in the organization sees the same actor.
  t.deepEqual((await o.platform.get(`/api/v2/inspector/actors/hold/${hold.holdId}`)).body, hv);
});

test.serial(
  'a hold expired by its durable timer: the step is caused by `system` and the timer is no longer pending',
  async (t) => {
    const { o, r } = await resolved('timer');
    const hold = (
      await o.api.post(`/api/v2/resolutions/${r.resolutionId}/options/${r.options[0].optionId}/hold`, {
        ttlSeconds: 60,
      })
    ).body;
    const path = `/api/v2/inspector/actors/hold/${hold.holdId}`;
    t.deepEqual((await o.api.get(path)).body.timers, [{ event: 'expire', dueAt: hold.expiresAt, pending: true }]);
    clock.advance(61_000);
    try {
      // The worker applies EXPIRE, then acknowledges the timer (at-least-once): between the two the timer is still
      // listed as pending, so wait for both.
      const hv = (
        await eventually(
          () => o.api.get(path),
          (res) => res.body.state === 'expired' && res.body.timers.every((x: any) => !x.pending),
        )
      ).body;
      t.like(hv, { state: 'expired', status: 'done', revision: 2 });
      t.like(hv.history[1], { seq: 2, event: 'EXPIRE', from: 'active', to: 'expired', causedBy: { type: 'system' } });
      t.deepEqual(hv.transitionsTaken, [{ n: 1, from: 'hold.active', event: 'EXPIRE', to: 'hold.expired' }]);
      t.deepEqual(hv.timers, [{ event: 'expire', dueAt: hold.expiresAt, pending: false }]);
      const rv = (
        await eventually(
          () => o.api.get(`/api/v2/inspector/actors/resolution/${r.resolutionId}`),
          (res) => res.body.history.some((h: any) => h.event === 'HOLD_ENDED'),
        )
      ).body;
      t.like(
        rv.history.find((h: any) => h.event === 'HOLD_ENDED'),
        { causedBy: { type: 'system' } },
      );
    } finally {
      clock.set('2026-03-02T12:00:00Z');
    }
  },
);

test("tenancy and bad input: another organization's actor is 403, an unknown one 404, a bad kind 400", async (t) => {
  const { o, r } = await resolved('tenant-a');
  const { o: other } = await resolved('tenant-b');
  const forbidden = await other.api.get(`/api/v2/inspector/actors/resolution/${r.resolutionId}`);
  t.is(forbidden.status, 403);
  t.is(forbidden.body.error.code, 'FORBIDDEN');
  for (const [kind, code] of [
    ['resolution', 'RESOLUTION_NOT_FOUND'],
    ['hold', 'HOLD_NOT_FOUND'],
    ['booking', 'BOOKING_NOT_FOUND'],
  ] as const) {
    const missing = await o.api.get(`/api/v2/inspector/actors/${kind}/${kind}_nope`);
    t.is(missing.status, 404, kind);
    t.is(missing.body.error.code, code);
  }
  const badKind = await o.api.get(`/api/v2/inspector/actors/widget/${r.resolutionId}`);
  t.is(badKind.status, 400);
  t.like(badKind.body.error, { code: 'VALIDATION_ERROR', field: 'kind' });
  // An id that could never name a Redis key is simply unknown, never a 500.
  const odd = await o.api.get(`/api/v2/inspector/actors/hold/${encodeURIComponent('a {b}|c')}`);
  t.is(odd.status, 404);
  t.is((await client(svc.url, 'service_test_nope').get('/api/v2/inspector/machines')).status, 401);
});

test('the gRPC door answers GetActor with the same view and the same refusals', async (t) => {
  const { o, r } = await resolved('grpc');
  const inspector = new InspectorServiceClient(svc.grpcTarget, credentials.createInsecure());
  const md = new Metadata();
  md.set('authorization', `Bearer ${o.key}`);
  const call = (params: Record<string, string>) =>
    new Promise<unknown>((resolve, reject) =>
      inspector.getActor(typedRequest('GetActor', { params }), md, (err, res) => (err ? reject(err) : resolve(res))),
    );
  try {
    const view = restOfResponse('GetActor', await call({ kind: 'resolution', id: r.resolutionId }));
    t.deepEqual(view, (await o.api.get(`/api/v2/inspector/actors/resolution/${r.resolutionId}`)).body);
    const err = (await t.throwsAsync(call({ kind: 'resolution', id: 'res_unknown' }))) as unknown as ServiceError;
    t.is(err.code, status.NOT_FOUND);
    t.is(errorCodeOfTrailers(err.metadata), 'RESOLUTION_NOT_FOUND');
  } finally {
    inspector.close();
  }
});
