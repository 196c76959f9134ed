import test from 'ava';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let orgA: any;
let orgB: any;
let keyA: string;
let keyB: string;
let providerA: any;
let providerB: any;

/** A platform client acting inside an organization. */
const platformIn = (orgId: string) => client(svc.url, svc.platformKey, { 'service-organization-id': orgId });

/** Creates a provider through the API. */
async function newProvider(orgId: string, externalId: string) {
  const r = await platformIn(orgId).post('/api/v2/providers', { externalId, displayName: `Dr. ${externalId}` });
  if (r.status !== 200) throw new Error(`provider create failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Makes a fresh organization with its own test key. */
async function newOrg(externalId: string) {
  const p = client(svc.url, svc.platformKey);
  const org = (await p.post('/api/v2/organizations', { externalId, name: externalId })).body;
  const key = (
    await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: externalId })
  ).body.key as string;
  return { org, key };
}

const graphVersion = async (orgId: string) =>
  (await platformIn(orgId).get(`/api/v2/organizations/${orgId}`)).body.providerGraphVersion as number;
const storedDoc = async (id: string) =>
  (await svc.service.deps.db.query('SELECT doc FROM calendar_connections WHERE id = $1', [id])).rows[0]?.doc;
const connectionCount = async (providerId: string) =>
  Number(
    (
      await svc.service.deps.db.query('SELECT count(*) AS n FROM calendar_connections WHERE provider_id = $1', [
        providerId,
      ])
    ).rows[0].n,
  );
const audits = async (id: string) =>
  (
    await svc.service.deps.db.query('SELECT action FROM audit_events WHERE resource_id = $1 ORDER BY seq', [id])
  ).rows.map((r) => r.action);

const closed = { enabled: false, slots: [] };
const weekdays = {
  monday: {
    enabled: true,
    slots: [
      { start: '09:00', end: '12:00' },
      { start: '13:00', end: '17:00' },
    ],
  },
  wednesday: { enabled: true, slots: [{ start: '10:00', end: '24:00' }] },
};
const schedule = (providerId: string, extra: Record<string, unknown> = {}) => ({
  providerId,
  title: 'Office hours',
  timezone: 'America/New_York',
  days: weekdays,
  ...extra,
});

test.before(async () => {
  // Feed URLs here name hosts that do not resolve on a test machine: the switch skips the address check (tested in
  // test/security).
  svc = await startTestService({ env: { OUTBOUND_ALLOW_INSECURE_URLS: '1' } });
  ({ org: orgA, key: keyA } = await newOrg('cal-a'));
  ({ org: orgB, key: keyB } = await newOrg('cal-b'));
  providerA = await newProvider(orgA.id, 'cal-prov-a');
  providerB = await newProvider(orgB.id, 'cal-prov-b');
});
test.after.always(async () => {
  await svc?.stop();
});

test('create answers the schedule with all seven weekdays, status active; graph version +1; audited', async (t) => {
  const { org, key } = await newOrg('cal-happy');
  const provider = await newProvider(org.id, 'happy');
  const v0 = await graphVersion(org.id);
  const sentAt = svc.clock().getTime();
  const r = await client(svc.url, key).post(
    '/api/v2/calendar-connections',
    schedule(provider.id, {
      overrides: [
        { date: '2026-12-24', slots: [] },
        { date: '2026-12-26', slots: [{ start: '10:00', end: '11:00' }] },
      ],
      externalCalendar: { type: 'ics', url: 'http://127.0.0.1:9/feed.ics' },
    }),
  );
  t.is(r.status, 200);
  t.regex(r.body.id, /^cal_[0-9a-z]{26}$/);
  t.deepEqual(r.body, {
    id: r.body.id,
    organizationId: org.id,
    providerId: provider.id,
    title: 'Office hours',
    timezone: 'America/New_York',
    status: 'active',
    days: {
      monday: weekdays.monday,
      tuesday: closed,
      wednesday: weekdays.wednesday,
      thursday: closed,
      friday: closed,
      saturday: closed,
      sunday: closed,
    },
    overrides: [
      { date: '2026-12-24', slots: [] },
      { date: '2026-12-26', slots: [{ start: '10:00', end: '11:00' }] },
    ],
    externalCalendar: { type: 'ics', url: 'http://127.0.0.1:9/feed.ics' },
    createdAt: r.body.createdAt,
    updatedAt: r.body.createdAt,
  });
  // Another test of this file moves the shared clock meanwhile: the stamp is the service clock's time during the call.
  t.true(
    Date.parse(r.body.createdAt) >= sentAt && Date.parse(r.body.createdAt) <= svc.clock().getTime(),
    r.body.createdAt,
  );
  t.is(await graphVersion(org.id), v0 + 1);
  t.deepEqual(await audits(r.body.id), ['calendar_connection.create']);
  t.deepEqual((await client(svc.url, key).get(`/api/v2/calendar-connections/${r.body.id}`)).body, r.body);
  const listed = await client(svc.url, key).get(`/api/v2/calendar-connections?providerId=${provider.id}`);
  t.deepEqual(listed.body, { data: [r.body], total: 1, hasMore: false, nextCursor: null });
});

test('optional fields default: no title, no overrides, no external calendar', async (t) => {
  const r = await client(svc.url, keyA).post('/api/v2/calendar-connections', {
    providerId: providerA.id,
    timezone: 'UTC',
    days: { friday: { enabled: true, slots: [{ start: '00:00', end: '24:00' }] } },
  });
  t.is(r.status, 200);
  t.like(r.body, { title: null, timezone: 'UTC', overrides: [], externalCalendar: null, status: 'active' });
  t.deepEqual(r.body.days.friday, { enabled: true, slots: [{ start: '00:00', end: '24:00' }] });
  t.deepEqual(r.body.days.monday, closed);
});

const badBodies: [string, (p: string) => unknown, string][] = [
  ['missing providerId', () => ({ timezone: 'UTC', days: weekdays }), 'providerId'],
  ['providerId a number', () => ({ providerId: 7, timezone: 'UTC', days: weekdays }), 'providerId'],
  ['missing timezone', (p) => ({ providerId: p, days: weekdays }), 'timezone'],
  ['invalid timezone', (p) => schedule(p, { timezone: 'Mars/Olympus_Mons' }), 'timezone'],
  ['timezone a number', (p) => schedule(p, { timezone: 5 }), 'timezone'],
  ['missing days', (p) => ({ providerId: p, timezone: 'UTC' }), 'days'],
  ['days a list', (p) => schedule(p, { days: [] }), 'days'],
  ['unknown weekday', (p) => schedule(p, { days: { funday: { enabled: true, slots: [] } } }), 'days.funday'],
  [
    'enabled not a boolean',
    (p) => schedule(p, { days: { monday: { enabled: 'yes', slots: [] } } }),
    'days.monday.enabled',
  ],
  ['missing enabled', (p) => schedule(p, { days: { monday: { slots: [] } } }), 'days.monday.enabled'],
  [
    'slots not a list',
    (p) => schedule(p, { days: { monday: { enabled: true, slots: '09:00-17:00' } } }),
    'days.monday.slots',
  ],
  [
    'hour 25',
    (p) => schedule(p, { days: { monday: { enabled: true, slots: [{ start: '25:00', end: '26:00' }] } } }),
    'days.monday.slots.0.start',
  ],
  [
    'end 24:01',
    (p) => schedule(p, { days: { monday: { enabled: true, slots: [{ start: '09:00', end: '24:01' }] } } }),
    'days.monday.slots.0.end',
  ],
  [
    'start 24:00',
    (p) => schedule(p, { days: { monday: { enabled: true, slots: [{ start: '24:00', end: '24:00' }] } } }),
    'days.monday.slots.0.start',
  ],
  [
    'time without leading zero',
    (p) => schedule(p, { days: { monday: { enabled: true, slots: [{ start: '9:00', end: '17:00' }] } } }),
    'days.monday.slots.0.start',
  ],
  [
    'minute 60',
    (p) => schedule(p, { days: { monday: { enabled: true, slots: [{ start: '09:60', end: '17:00' }] } } }),
    'days.monday.slots.0.start',
  ],
  [
    'start equals end',
    (p) => schedule(p, { days: { monday: { enabled: true, slots: [{ start: '09:00', end: '09:00' }] } } }),
    'days.monday.slots.0.end',
  ],
  [
    'start after end',
    (p) => schedule(p, { days: { tuesday: { enabled: true, slots: [{ start: '17:00', end: '09:00' }] } } }),
    'days.tuesday.slots.0.end',
  ],
  [
    'overlapping windows',
    (p) =>
      schedule(p, {
        days: {
          monday: {
            enabled: true,
            slots: [
              { start: '09:00', end: '12:00' },
              { start: '11:30', end: '13:00' },
            ],
          },
        },
      }),
    'days.monday.slots.1',
  ],
  [
    'contained window',
    (p) =>
      schedule(p, {
        days: {
          friday: {
            enabled: true,
            slots: [
              { start: '10:00', end: '11:00' },
              { start: '08:00', end: '18:00' },
            ],
          },
        },
      }),
    'days.friday.slots.1',
  ],
  [
    'missing end',
    (p) => schedule(p, { days: { monday: { enabled: true, slots: [{ start: '09:00' }] } } }),
    'days.monday.slots.0.end',
  ],
  [
    'impossible override date',
    (p) => schedule(p, { overrides: [{ date: '2026-02-30', slots: [] }] }),
    'overrides.0.date',
  ],
  [
    'override date malformed',
    (p) => schedule(p, { overrides: [{ date: '30/01/2026', slots: [] }] }),
    'overrides.0.date',
  ],
  [
    'override repeated date',
    (p) =>
      schedule(p, {
        overrides: [
          { date: '2026-03-01', slots: [] },
          { date: '2026-03-01', slots: [] },
        ],
      }),
    'overrides.1.date',
  ],
  [
    'override overlapping windows',
    (p) =>
      schedule(p, {
        overrides: [
          {
            date: '2026-03-02',
            slots: [
              { start: '09:00', end: '10:00' },
              { start: '09:30', end: '11:00' },
            ],
          },
        ],
      }),
    'overrides.0.slots.1',
  ],
  ['override without slots', (p) => schedule(p, { overrides: [{ date: '2026-03-02' }] }), 'overrides.0.slots'],
  ['overrides not a list', (p) => schedule(p, { overrides: { date: '2026-03-02', slots: [] } }), 'overrides'],
  ['title over 200 characters', (p) => schedule(p, { title: 't'.repeat(201) }), 'title'],
  ['huge title', (p) => schedule(p, { title: 'x'.repeat(200_000) }), 'title'],
  ['title a number', (p) => schedule(p, { title: 12 }), 'title'],
  [
    'externalCalendar of another type',
    (p) => schedule(p, { externalCalendar: { type: 'google', url: 'https://x.example/feed.ics' } }),
    'externalCalendar.type',
  ],
  [
    'externalCalendar ftp url',
    (p) => schedule(p, { externalCalendar: { type: 'ics', url: 'ftp://x.example/feed.ics' } }),
    'externalCalendar.url',
  ],
  [
    'externalCalendar not a url',
    (p) => schedule(p, { externalCalendar: { type: 'ics', url: 'not a url' } }),
    'externalCalendar.url',
  ],
  ['externalCalendar url missing', (p) => schedule(p, { externalCalendar: { type: 'ics' } }), 'externalCalendar.url'],
];

test('bad create bodies are 400 VALIDATION_ERROR naming the field, and change nothing', async (t) => {
  const { org, key } = await newOrg('cal-bad');
  const provider = await newProvider(org.id, 'bad');
  const v0 = await graphVersion(org.id);
  for (const [name, body, field] of badBodies) {
    const r = await client(svc.url, key).post('/api/v2/calendar-connections', body(provider.id));
    t.is(r.status, 400, name);
    t.is(r.body.error?.code, 'VALIDATION_ERROR', name);
    t.is(r.body.error?.field, field, `${name}: ${JSON.stringify(r.body.error?.details)}`);
    t.true(
      r.body.error.details.some((d: any) => d.field === field),
      name,
    );
  }
  t.is(await connectionCount(provider.id), 0);
  t.is(await graphVersion(org.id), v0);
});

test('every problem of a body is listed in details, schema and schedule alike', async (t) => {
  const r = await client(svc.url, keyA).post('/api/v2/calendar-connections', {
    timezone: 'Nowhere/City',
    days: {
      monday: {
        enabled: true,
        slots: [
          { start: '09:00', end: '12:00' },
          { start: '10:00', end: '11:00' },
        ],
      },
      tuesday: { enabled: true, slots: [{ start: '25:00', end: '26:00' }] },
    },
  });
  t.is(r.status, 400);
  const fields = r.body.error.details.map((d: any) => d.field);
  for (const f of ['providerId', 'timezone', 'days.monday.slots.1', 'days.tuesday.slots.0.start'])
    t.true(fields.includes(f), f);
  t.is(new Set(fields).size, fields.length, 'each field once');
});

test('windows may touch; an end of 24:00 is the end of the day', async (t) => {
  const r = await client(svc.url, keyA).post(
    '/api/v2/calendar-connections',
    schedule(providerA.id, {
      days: {
        monday: {
          enabled: true,
          slots: [
            { start: '12:00', end: '24:00' },
            { start: '09:00', end: '12:00' },
          ],
        },
      },
    }),
  );
  t.is(r.status, 200);
  t.deepEqual(r.body.days.monday.slots, [
    { start: '12:00', end: '24:00' },
    { start: '09:00', end: '12:00' },
  ]);
});

test('unknown provider is 404; another organization’s provider is 403; nothing is stored', async (t) => {
  const unknown = await client(svc.url, keyA).post('/api/v2/calendar-connections', schedule('prv_nope'));
  t.is(unknown.status, 404);
  t.is(unknown.body.error.code, 'PROVIDER_NOT_FOUND');
  // A quiet organization of its own, so concurrent tests cannot move its counters.
  const { org: other } = await newOrg('cal-foreign');
  const foreignProvider = await newProvider(other.id, 'foreign');
  const vOther = await graphVersion(other.id);
  const foreign = await client(svc.url, keyA).post('/api/v2/calendar-connections', schedule(foreignProvider.id));
  t.is(foreign.status, 403);
  t.is(foreign.body.error.code, 'FORBIDDEN');
  t.is(await connectionCount(foreignProvider.id), 0);
  t.is(await graphVersion(other.id), vOther);
  const list = await client(svc.url, keyA).get(`/api/v2/calendar-connections?providerId=${foreignProvider.id}`);
  t.is(list.status, 403);
  t.is(
    (await client(svc.url, keyA).get('/api/v2/calendar-connections?providerId=prv_nope')).body.error.code,
    'PROVIDER_NOT_FOUND',
  );
});

test('tenancy: read, patch and delete of another organization’s connection are 403 and change nothing', async (t) => {
  const conn = (await client(svc.url, keyB).post('/api/v2/calendar-connections', schedule(providerB.id))).body;
  const doc = await storedDoc(conn.id);
  const vB = await graphVersion(orgB.id);
  const a = client(svc.url, keyA);
  const attempts = [
    await a.get(`/api/v2/calendar-connections/${conn.id}`),
    await a.patch(`/api/v2/calendar-connections/${conn.id}`, { title: 'hijacked' }),
    await a.patch(`/api/v2/calendar-connections/${conn.id}`, { timezone: 'not/a-zone' }),
    await a.delete(`/api/v2/calendar-connections/${conn.id}`),
  ];
  for (const r of attempts) {
    t.is(r.status, 403);
    t.is(r.body.error.code, 'FORBIDDEN');
  }
  t.deepEqual(await storedDoc(conn.id), doc);
  t.is(await graphVersion(orgB.id), vB);
  t.deepEqual(await audits(conn.id), ['calendar_connection.create']);
  // Organization A's list never shows B's connection.
  const listA = await a.get('/api/v2/calendar-connections?limit=500');
  t.false(listA.body.data.some((c: any) => c.id === conn.id));
});

test('unknown connection ids are 404 CALENDAR_CONNECTION_NOT_FOUND on read, patch and delete', async (t) => {
  const a = client(svc.url, keyA);
  for (const r of [
    await a.get('/api/v2/calendar-connections/cal_missing'),
    await a.patch('/api/v2/calendar-connections/cal_missing', { title: 'x' }),
    await a.delete('/api/v2/calendar-connections/cal_missing'),
  ]) {
    t.is(r.status, 404);
    t.is(r.body.error.code, 'CALENDAR_CONNECTION_NOT_FOUND');
  }
});

test('patch changes only what it names, re-validates the whole schedule, and bumps the graph version per change', async (t) => {
  const { org, key } = await newOrg('cal-patch');
  const provider = await newProvider(org.id, 'patch');
  const c = client(svc.url, key);
  const conn = (
    await c.post(
      '/api/v2/calendar-connections',
      schedule(provider.id, {
        externalCalendar: { type: 'ics', url: 'http://127.0.0.1:9/a.ics' },
        overrides: [{ date: '2026-07-04', slots: [] }],
      }),
    )
  ).body;
  let v = await graphVersion(org.id);

  svc.clock.advance(60_000);
  const renamed = await c.patch(`/api/v2/calendar-connections/${conn.id}`, {
    title: 'Evenings',
    days: { tuesday: { enabled: true, slots: [{ start: '18:00', end: '21:00' }] } },
  });
  t.is(renamed.status, 200);
  t.like(renamed.body, { title: 'Evenings', timezone: 'America/New_York', createdAt: conn.createdAt });
  t.not(renamed.body.updatedAt, conn.updatedAt);
  t.deepEqual(renamed.body.days.monday, weekdays.monday, 'weekdays not named keep their windows');
  t.deepEqual(renamed.body.days.tuesday, { enabled: true, slots: [{ start: '18:00', end: '21:00' }] });
  t.deepEqual(renamed.body.overrides, conn.overrides);
  t.is(await graphVersion(org.id), ++v);

  const cleared = await c.patch(`/api/v2/calendar-connections/${conn.id}`, {
    externalCalendar: null,
    overrides: null,
    title: null,
    timezone: 'Europe/Berlin',
  });
  t.is(cleared.status, 200);
  t.like(cleared.body, { externalCalendar: null, overrides: [], title: null, timezone: 'Europe/Berlin' });
  t.is(await graphVersion(org.id), ++v);

  const same = await c.patch(`/api/v2/calendar-connections/${conn.id}`, { timezone: 'Europe/Berlin' });
  t.deepEqual(same.body, cleared.body, 'a patch that changes nothing writes nothing');
  t.is(await graphVersion(org.id), v);

  const before = await storedDoc(conn.id);
  const badPatches: [string, unknown, string][] = [
    [
      'overlap with nothing else',
      {
        days: {
          monday: {
            enabled: true,
            slots: [
              { start: '09:00', end: '10:00' },
              { start: '09:30', end: '10:30' },
            ],
          },
        },
      },
      'days.monday.slots.1',
    ],
    [
      'hour 25',
      { days: { tuesday: { enabled: true, slots: [{ start: '25:00', end: '26:00' }] } } },
      'days.tuesday.slots.0.start',
    ],
    ['invalid timezone', { timezone: 'Europe/Atlantis' }, 'timezone'],
    ['timezone null', { timezone: null }, 'timezone'],
    ['unknown weekday', { days: { someday: { enabled: true, slots: [] } } }, 'days.someday'],
    ['impossible override date', { overrides: [{ date: '2026-02-30', slots: [] }] }, 'overrides.0.date'],
    ['providerId cannot change', { providerId: providerA.id }, 'providerId'],
    [
      'externalCalendar bad url',
      { externalCalendar: { type: 'ics', url: 'javascript:alert(1)' } },
      'externalCalendar.url',
    ],
    ['huge title', { title: 'x'.repeat(5000) }, 'title'],
  ];
  for (const [name, body, field] of badPatches) {
    const r = await c.patch(`/api/v2/calendar-connections/${conn.id}`, body);
    t.is(r.status, 400, name);
    t.is(r.body.error?.code, 'VALIDATION_ERROR', name);
    t.is(r.body.error?.field, field, `${name}: ${JSON.stringify(r.body.error?.details)}`);
  }
  t.deepEqual(await storedDoc(conn.id), before);
  t.is(await graphVersion(org.id), v);
  t.deepEqual(await audits(conn.id), [
    'calendar_connection.create',
    'calendar_connection.update',
    'calendar_connection.update',
  ]);
});

test('delete answers the connection with deleted: true, then it is gone; graph version +1; audited', async (t) => {
  const { org, key } = await newOrg('cal-del');
  const provider = await newProvider(org.id, 'del');
  const c = client(svc.url, key);
  const conn = (await c.post('/api/v2/calendar-connections', schedule(provider.id))).body;
  const v0 = await graphVersion(org.id);
  const d = await c.delete(`/api/v2/calendar-connections/${conn.id}`);
  t.is(d.status, 200);
  t.deepEqual(d.body, { ...conn, deleted: true });
  t.is(await graphVersion(org.id), v0 + 1);
  t.is((await c.get(`/api/v2/calendar-connections/${conn.id}`)).status, 404);
  t.is((await c.delete(`/api/v2/calendar-connections/${conn.id}`)).status, 404);
  t.deepEqual((await c.get(`/api/v2/calendar-connections?providerId=${provider.id}`)).body.data, []);
  t.deepEqual(await audits(conn.id), ['calendar_connection.create', 'calendar_connection.delete']);
  t.is(await graphVersion(org.id), v0 + 1);
});

test('list pagination covers every connection once; bad list queries are 400', async (t) => {
  const provider = await newProvider(orgA.id, 'cal-page');
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      (await client(svc.url, keyA).post('/api/v2/calendar-connections', schedule(provider.id, { title: `S${i}` }))).body
        .id,
    );
  const first = await client(svc.url, keyA).get(`/api/v2/calendar-connections?providerId=${provider.id}&limit=2`);
  t.like(first.body, { total: 3, hasMore: true });
  const second = await client(svc.url, keyA).get(
    `/api/v2/calendar-connections?providerId=${provider.id}&limit=2&cursor=${first.body.nextCursor}`,
  );
  t.like(second.body, { total: 3, hasMore: false, nextCursor: null });
  t.deepEqual(
    [...first.body.data, ...second.body.data].map((c: any) => c.id),
    [...ids].sort(),
  );
  for (const q of ['limit=abc', 'limit=0', 'limit=9999', 'cursor=%25%25']) {
    const r = await client(svc.url, keyA).get(`/api/v2/calendar-connections?${q}`);
    t.is(r.status, 400, q);
    t.is(r.body.error.code, 'VALIDATION_ERROR', q);
  }
});
