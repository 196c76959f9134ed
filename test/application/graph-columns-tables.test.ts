import test from 'ava';
import { gzipSync } from 'node:zlib';
import { decodeGraphColumns, type GraphParts } from '../../src/application/resolution/graph-columns.js';
import { encodeGraphColumns } from '../../src/application/resolution/graph-columns-writer.js';
import { gunzipWhole } from '../../src/application/resolution/graph-snapshots.js';
import { assembleOrgGraph } from '../helpers/record-org-graph.js';
import type { CalendarConnection, LicenseRecord, Provider, ProviderService } from '../../src/domain/provider.js';

const key = { organizationId: 'org_columns', graphVersion: 7 };

function provider(id: string, licenseRecords: unknown): Provider {
  return {
    id,
    organizationId: key.organizationId,
    externalId: `ext-${id}`,
    displayName: `Provider ${id}`,
    email: undefined,
    status: 'active',
    searchable: true,
    professionCode: 'lcsw',
    specialtyCodes: ['anxiety'],
    languageCodes: ['en'],
    modalityCodes: ['virtual'],
    serviceRegionCodes: ['US-CA'],
    insurancePlanCodes: [],
    ageGroupCodes: ['adult'],
    licenseRecords: licenseRecords as LicenseRecord[],
    acceptsNewClients: true,
    timezone: 'America/Los_Angeles',
    bio: undefined,
    username: undefined,
    location: 'US-CA',
    panelCapacity: undefined,
    panelCurrentCount: undefined,
    profileVersion: 1,
    createdAt: '2026-11-27T00:00:00.000Z',
    updatedAt: '2026-11-27T00:00:00.000Z',
  };
}

function service(p: Provider, n: number): ProviderService {
  return {
    id: `svc_${p.id}_${n}`,
    organizationId: key.organizationId,
    providerId: p.id,
    slug: 'intake',
    title: 'Intake',
    duration: 50,
    price: undefined,
    currency: undefined,
    modality: 'virtual',
    slotIntervalMinutes: undefined,
    minimumNoticeMinutes: undefined,
    bufferBeforeMinutes: undefined,
    bufferAfterMinutes: undefined,
  };
}

function schedule(p: Provider): CalendarConnection {
  return {
    id: `cal_${p.id}`,
    organizationId: key.organizationId,
    providerId: p.id,
    title: undefined,
    timezone: 'America/Los_Angeles',
    days: { monday: { enabled: true, slots: [{ start: '09:00', end: '17:00' }] } } as CalendarConnection['days'],
    overrides: [],
    externalCalendar: undefined,
    status: 'active',
  };
}

/** Providers whose license lists take every path: the table (several key orders), JSON, none. */
function variedParts(): GraphParts {
  const full = { licenseTypeCode: 'lcsw', regionCode: 'US-CA', status: 'active', expiresAt: '2030-01-31' };
  const providers = [
    provider('p01', [full, { ...full, regionCode: 'US-NY', verifiedAt: '2026-01-02T03:04:05.000Z' }]),
    // The key order of a record as stored (jsonb orders keys its own way) comes back as it was.
    provider('p02', [{ status: 'active', expiresAt: '2029-12-31', regionCode: 'US-WA', licenseTypeCode: 'lpc' }]),
    provider('p03', []),
    // A key outside the record's fields, and a value that is not a string: the list is kept as JSON.
    provider('p04', [{ ...full, note: 'board certified' }]),
    provider('p05', [{ ...full, expiresAt: null }]),
    provider('p06', null),
    provider('p07', [{ licenseTypeCode: 'lcsw', regionCode: 'US-TX', status: 'pending' }]),
  ];
  return {
    providers,
    services: providers.flatMap((p) => [service(p, 1), service(p, 2)]),
    schedules: providers.map(schedule).reverse(),
    sharedBytes: 0,
  };
}

test('columns round-trip every license list exactly (the table, other key orders, JSON lists, none), in order', async (t) => {
  const parts = variedParts();
  const decoded = decodeGraphColumns(await encodeGraphColumns(key, parts), key);
  t.deepEqual(decoded.providers, parts.providers);
  t.deepEqual(
    decoded.providers.map((p) => (Array.isArray(p.licenseRecords) ? p.licenseRecords.map((r) => Object.keys(r)) : [])),
    parts.providers.map((p) => (Array.isArray(p.licenseRecords) ? p.licenseRecords.map((r) => Object.keys(r)) : [])),
    'each record keeps its keys in their order',
  );
  t.deepEqual(
    decoded.providers.map((p) => Object.keys(p)),
    parts.providers.map((p) => Object.keys(p)),
  );
  t.deepEqual(decoded.services, parts.services);
  t.deepEqual(decoded.schedules, parts.schedules);
  t.true(decoded.providerIdsShared);
  t.not(decoded.providers[0]!.licenseRecords, decoded.providers[1]!.licenseRecords, 'each provider has its own list');
});

test('a graph assembled from decoded columns equals the one assembled from the records', async (t) => {
  // Loaded graphs have a list for every provider (none: an empty one).
  const loaded = (): GraphParts => {
    const p = variedParts();
    for (const x of p.providers) x.licenseRecords ??= [];
    return p;
  };
  const parts = loaded();
  const fromRecords = assembleOrgGraph(key.organizationId, key.graphVersion, loaded(), 0);
  const fromColumns = assembleOrgGraph(
    key.organizationId,
    key.graphVersion,
    decodeGraphColumns(await encodeGraphColumns(key, parts), key),
    0,
  );
  t.deepEqual(fromColumns.providers, fromRecords.providers);
  t.deepEqual([...fromColumns.serviceById], [...fromRecords.serviceById]);
  t.deepEqual(
    [...fromColumns.servicesBySlug].map(([s, m]) => [s, [...m]]),
    [...fromRecords.servicesBySlug].map(([s, m]) => [s, [...m]]),
  );
  t.deepEqual([...fromColumns.schedulesByProvider], [...fromRecords.schedulesByProvider]);
  t.deepEqual(fromColumns.eligibilityIndex.licenses, fromRecords.eligibilityIndex.licenses);
  t.is(fromColumns.providerById.get('p04'), fromColumns.providers[3], 'the id map is built on first use');
  t.is(fromColumns.providerById.size, parts.providers.length);
});

test('gunzipWhole gives the whole member in one buffer of its size; a member whose size field lies is refused', async (t) => {
  const columns = await encodeGraphColumns(key, variedParts());
  const body = gzipSync(columns);
  const out = await gunzipWhole(body);
  t.true(out.equals(columns));
  t.is(out.buffer.byteLength, Math.max(columns.length + 1, 64 * 1024), 'one chunk of the size the trailer gives');
  const large = Buffer.alloc(3 * 1024 * 1024, 'graph columns ');
  const whole = await gunzipWhole(gzipSync(large));
  t.true(whole.equals(large));
  t.is(whole.buffer.byteLength, large.length + 1);
  // A trailer that lies about the size is refused by zlib's own length check.
  const lying = Buffer.from(body);
  lying.writeUInt32LE(3, lying.length - 4);
  await t.throwsAsync(gunzipWhole(lying));
  const small = gzipSync(Buffer.from('tiny'));
  t.is((await gunzipWhole(small)).toString(), 'tiny');
});
