import test from 'ava';
import {
  decodeGraphColumns,
  GraphColumnsError,
  openGraphColumns,
  type GraphParts,
} from '../../src/application/resolution/graph-columns.js';
import { encodeGraphColumns } from '../../src/application/resolution/graph-columns-writer.js';
import type { CalendarConnection, Provider, ProviderService } from '../../src/domain/provider.js';

const key = { organizationId: 'org_1', graphVersion: 42 };

function provider(i: number, extra: Partial<Provider> = {}): Provider {
  return {
    id: `prv_${String(i).padStart(6, '0')}`,
    organizationId: 'org_1',
    externalId: `ext-${i}`,
    displayName: `Dr. ${i}`,
    email: undefined,
    status: 'active',
    searchable: true,
    professionCode: 'psychologist',
    specialtyCodes: ['anxiety'],
    languageCodes: ['en', 'es'],
    modalityCodes: [],
    serviceRegionCodes: ['US-CA'],
    insurancePlanCodes: [],
    ageGroupCodes: ['adult'],
    licenseRecords: [
      { licenseTypeCode: 'psychologist', regionCode: 'US-CA', status: 'active', expiresAt: '2031-01-31' },
    ],
    acceptsNewClients: undefined,
    timezone: 'America/Los_Angeles',
    bio: undefined,
    username: undefined,
    location: undefined,
    panelCapacity: undefined,
    panelCurrentCount: undefined,
    profileVersion: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

function parts(): GraphParts {
  const providers = [
    provider(1, {
      displayName: 'Zoë 名前 \u{1F600}',
      bio: 'line\nbreak "quoted" \\ back',
      acceptsNewClients: false,
      panelCapacity: 0,
      panelCurrentCount: 2 ** 40,
    }),
    provider(2, { acceptsNewClients: true, email: 'two@example.org', panelCapacity: -0, profileVersion: 1.5 }),
    provider(3, { status: 'inactive', searchable: false, professionCode: undefined, licenseRecords: [] }),
    provider(4, { panelCapacity: Number.NaN, panelCurrentCount: -7 }),
  ];
  const services: ProviderService[] = providers.map((p, i) => ({
    id: `svc_${i}`,
    organizationId: 'org_1',
    providerId: p.id,
    slug: 'intake-session',
    title: 'Intake Session',
    duration: 60,
    price: i === 0 ? 120.25 : undefined,
    currency: i === 0 ? 'USD' : undefined,
    modality: undefined,
    slotIntervalMinutes: undefined,
    minimumNoticeMinutes: i,
    bufferBeforeMinutes: undefined,
    bufferAfterMinutes: undefined,
  }));
  const schedules: CalendarConnection[] = providers.slice(0, 2).map((p, i) => ({
    id: `cal_${i}`,
    organizationId: 'org_1',
    providerId: p.id,
    title: undefined,
    timezone: 'UTC',
    days: { monday: { enabled: true, slots: [{ start: '09:00', end: '17:00' }] } },
    overrides: [],
    externalCalendar: i === 0 ? { type: 'ics', url: 'https://calendar.example.org/a.ics' } : undefined,
    status: 'active',
  }));
  return { providers, services, schedules, sharedBytes: 0 };
}

test('columns decode to records equal to those encoded: strings of any plane, -0, NaN, large and fractional numbers, absent fields', async (t) => {
  const p = parts();
  let pauses = 0;
  const back = decodeGraphColumns(
    await encodeGraphColumns(key, p, async () => {
      pauses++;
    }),
    key,
  );
  t.is(pauses, 25 + 13 + 9, 'one pause before each column (providers, services, schedules)');
  t.deepEqual(back.providers, p.providers);
  t.deepEqual(
    back.providers.map((x) => Object.keys(x)),
    p.providers.map((x) => Object.keys(x)),
  );
  t.true(Object.is(back.providers[1]!.panelCapacity, -0));
  t.true(Number.isNaN(back.providers[3]!.panelCapacity));
  t.deepEqual(back.services, p.services);
  t.deepEqual(back.schedules, p.schedules);
  t.is(back.providers[0]!.languageCodes, back.providers[1]!.languageCodes, 'equal code lists are shared');
  t.is(back.schedules[0]!.days, back.schedules[1]!.days, 'equal weeks are shared');
  t.not(back.providers[0]!.licenseRecords, back.providers[1]!.licenseRecords, 'license records are each its own');
  t.is(back.services[0]!.providerId, back.providers[0]!.id, 'one string for one id');
  t.true(back.sharedBytes > 0);
});

test("a service or schedule in any order refers to its provider by the string of the provider's id (one not a provider's by a string of its own)", async (t) => {
  const p = parts();
  const services = [3, 0, 2, 1].map((i, k) => ({ ...p.services[i]!, id: `svc_x${k}` }));
  services.push({ ...p.services[0]!, id: 'svc_x4', providerId: 'prv_gone' });
  const schedules = [1, 3, 0].map((i) => ({ ...p.schedules[0]!, id: `cal_x${i}`, providerId: p.providers[i]!.id }));
  const view = openGraphColumns(await encodeGraphColumns(key, { ...p, services, schedules }), key);
  const ids = view.cells('providers', 'id').values;
  for (const [kind, records] of [
    ['services', services],
    ['schedules', schedules],
  ] as const) {
    const refs = view.cells(kind, 'providerId').values;
    records.forEach((r, k) => {
      const at = p.providers.findIndex((x) => x.id === r.providerId);
      if (at >= 0) t.is(refs[k], ids[at], `${kind} ${k}: the provider's string`);
      else t.is(view.str(refs[k]!), 'prv_gone');
    });
  }
  t.deepEqual(view.parts().services, services);
  t.deepEqual(view.parts().schedules, schedules);
});

test('columns are refused (GraphColumnsError) for another organization or version, and when cut or damaged', async (t) => {
  const buf = await encodeGraphColumns(key, parts());
  const refused = (b: Buffer, k = key) => t.throws(() => decodeGraphColumns(b, k), { instanceOf: GraphColumnsError });
  refused(buf, { organizationId: 'org_2', graphVersion: 42 });
  refused(buf, { organizationId: 'org_1', graphVersion: 41 });
  for (const cut of [0, 4, 7, 20, Math.floor(buf.length / 2), buf.length - 1]) refused(buf.subarray(0, cut));
  const bad = Buffer.from(buf);
  bad.write('XXXX', 0, 'latin1');
  refused(bad);
  // A header that parses but lies about the sizes.
  const headerLength = buf.readUInt32LE(4);
  const header = JSON.parse(buf.toString('utf8', 8, 8 + headerLength));
  header.counts.providers += 1;
  const lying = Buffer.from(JSON.stringify(header).padEnd(headerLength, ' '));
  const liar = Buffer.from(buf);
  lying.copy(liar, 8);
  refused(liar);
  t.notThrows(() => decodeGraphColumns(buf, key));
  const unaligned = Buffer.concat([Buffer.alloc(3), buf]).subarray(3);
  t.deepEqual(decodeGraphColumns(unaligned, key), decodeGraphColumns(buf, key), 'read from a buffer at any offset');
});
