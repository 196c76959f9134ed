import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, status } from '@grpc/grpc-js';
import {
  InspectorServiceClient,
  type GetActorResponse,
  type GetMachineResponse,
  type ListMachinesResponse,
  type WatchActorResponse,
} from '../../src/gen/scheduling/v1/inspector_service.js';
import { MachineName, MachineState_Type } from '../../src/gen/scheduling/v1/resources.js';
import { inspectorRoutes } from '../../src/contract/routes/inspector-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { getMachine } from '../../src/api/inspector-service/get-machine.js';
import { getActor } from '../../src/api/inspector-service/get-actor.js';
import { actorViewMessage } from '../../src/api/messages/actor-view-message.js';
import { readActorView } from '../../src/application/inspector/actor-view.js';
import { resolutionActorKind } from '../../machines/machine-versions.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { assertRefusals, bearer, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * InspectorService on its typed messages (src/api/inspector-service/): the catalogue and an actor's view as typed
 * messages, WatchActor as a typed server stream, refusals with the contract's code as ErrorInfo reason and the field,
 * implementations callable with their deps alone, and the REST door answering what the typed one does.
 */

let svc: TestService;
let inspector: InspectorServiceClient;
let o: Awaited<ReturnType<typeof newOrganization>>;
let other: Awaited<ReturnType<typeof newOrganization>>;
let resolutionId: string;
let otherResolutionId: string;
const clock = createTestClock('2026-03-02T12:00:00Z');

/** An organization with one provider and a fresh resolution. */
async function resolved() {
  const org = await newOrganization(svc, `tins-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(org, { externalId: 'p1', languageCodes: ['en'] });
  const r = await org.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 2 },
    { 'idempotency-key': randomUUID() },
  );
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return { org, resolutionId: r.body.resolutionId as string };
}

test.before(async () => {
  svc = await startTestService({ clock });
  inspector = new InspectorServiceClient(svc.grpcTarget, credentials.createInsecure());
  ({ org: o, resolutionId } = await resolved());
  ({ org: other, resolutionId: otherResolutionId } = await resolved());
});
test.after.always(async () => {
  inspector?.close();
  await svc?.stop();
});

const metadata = () => bearer(o.key);

function unary<Res>(method: 'listMachines' | 'getMachine' | 'getActor', req: object): Promise<Res> {
  return unaryCall(inspector, method, req, metadata());
}

/** The first message of a WatchActor stream (then cancelled), or its refusal. */
function firstWatched(req: object): Promise<WatchActorResponse> {
  const call = inspector.watchActor(req, metadata());
  return new Promise((resolve, reject) => {
    call.once('data', (m: WatchActorResponse) => {
      call.removeAllListeners('error');
      call.on('error', () => undefined);
      call.cancel();
      resolve(m);
    });
    call.once('error', reject);
  });
}

const route = (rpc: string) => inspectorRoutes.find((r) => r.rpc === rpc)!;

test('ListMachines and GetMachine answer the typed catalogue; REST answers the same', async (t) => {
  const list = await unary<ListMachinesResponse>('listMachines', {});
  const machines = list.machineCatalogue!.machines!;
  t.deepEqual(
    machines.map((m) => m.id),
    ['resolution', 'hold', 'booking', 'waitlist_entry'],
  );
  t.true(machines.every((m) => m.states!.every((s) => s.type !== MachineState_Type.TYPE_UNSPECIFIED)));
  t.true(machines.every((m) => m.dot!.startsWith('digraph')));
  const hold = await unary<GetMachineResponse>('getMachine', { machineName: MachineName.MACHINE_NAME_HOLD });
  t.deepEqual(hold.machine, machines[1]);
  const rest = await o.api.get('/api/v2/inspector/machines');
  t.is(rest.status, 200);
  t.deepEqual(responseMessageOf(route('ListMachines'), rest.body), list);
});

test('GetActor answers the typed view; REST answers the same; the message is the one REST was carried in', async (t) => {
  const typed = await unary<GetActorResponse>('getActor', {
    machineName: MachineName.MACHINE_NAME_RESOLUTION,
    id: resolutionId,
  });
  const v = typed.actorView!;
  t.like(v, { machineName: MachineName.MACHINE_NAME_RESOLUTION, id: resolutionId, machine: 'resolution' });
  t.is(typeof v.stateName, 'string');
  t.true(v.history!.length > 0);
  t.is(v.history![0]!.fromState, undefined, 'the creation has no state before');
  t.true(v.history![0]!.at instanceof Date);
  const rest = await o.api.get(`/api/v2/inspector/actors/resolution/${resolutionId}`);
  t.is(rest.status, 200);
  t.deepEqual(responseMessageOf(route('GetActor'), rest.body), typed);
  // The explicit mapping equals the conversion the old operation's view went through.
  const view = (await readActorView(svc.service.deps, resolutionActorKind, resolutionId))!;
  t.deepEqual({ actorView: actorViewMessage(view) }, responseMessageOf(route('GetActor'), view));
});

test('WatchActor streams typed views, the first at once', async (t) => {
  const first = await firstWatched({ machineName: MachineName.MACHINE_NAME_RESOLUTION, id: resolutionId });
  const read = await unary<GetActorResponse>('getActor', {
    machineName: MachineName.MACHINE_NAME_RESOLUTION,
    id: resolutionId,
  });
  t.deepEqual(first.actorView, read.actorView);
});

const refusals: Refusal[] = [
  {
    name: 'no machine name',
    call: () => unary('getMachine', {}),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'machine',
  },
  {
    name: 'an actor without its kind and id, named as REST names them',
    call: () => unary('getActor', { id: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'kind',
  },
  {
    name: 'an unknown actor',
    call: () => unary('getActor', { machineName: MachineName.MACHINE_NAME_HOLD, id: 'hld_missing' }),
    code: status.NOT_FOUND,
    reason: 'HOLD_NOT_FOUND',
  },
  {
    name: 'another organization’s actor',
    call: () => unary('getActor', { machineName: MachineName.MACHINE_NAME_RESOLUTION, id: otherResolutionId }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
  {
    name: 'a stream of another organization’s actor, before any message',
    call: () => firstWatched({ machineName: MachineName.MACHINE_NAME_RESOLUTION, id: otherResolutionId }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
  {
    name: 'a stream without its id',
    call: () => firstWatched({ machineName: MachineName.MACHINE_NAME_BOOKING }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'id',
  },
];
assertRefusals(test, 'a typed InspectorService request is refused with ErrorInfo', refusals, { domain: false });

test('GetMachine and GetActor are functions of their dependencies, the caller and the typed request', async (t) => {
  const caller = { requestId: 'req_direct', organizationId: o.org.id } as Caller;
  const booking = await getMachine({}, caller, { machineName: MachineName.MACHINE_NAME_BOOKING });
  t.is(booking.machine!.id, 'booking');
  const { db, actors, redis } = svc.service.deps;
  const read = await getActor({ db, actors, redis }, caller, {
    machineName: MachineName.MACHINE_NAME_RESOLUTION,
    id: resolutionId,
  });
  t.is(read.actorView!.id, resolutionId);
  const err = await t.throwsAsync(() =>
    getActor({ db, actors, redis }, caller, {
      machineName: MachineName.MACHINE_NAME_RESOLUTION,
      id: otherResolutionId,
    }),
  );
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'FORBIDDEN' });
});
