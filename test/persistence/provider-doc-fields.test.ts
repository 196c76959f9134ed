import test from 'ava';
import { Provider, ProviderWritable } from '../../src/contract/schemas/provider.js';
import {
  PROVIDER_DOC_KEYS,
  providerDoc,
  readProviderDoc,
  toProviderView,
} from '../../src/persistence/provider-repository.js';

const row = (doc: Record<string, unknown>) => ({
  id: 'prv_1',
  organization_id: 'org_1',
  external_id: 'ext-1',
  status: 'active',
  searchable: true,
  doc,
  profile_version: 3,
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-01-02T00:00:00Z'),
});

test('the REST Provider shape names exactly the fields of the provider view', (t) => {
  const view = toProviderView(row({ displayName: 'Dr. A' }));
  t.deepEqual(Object.keys(view).sort(), Object.keys(Provider.shape).sort());
  t.true(Provider.safeParse(view).success);
});

test('every doc field is writable through the provider body', (t) => {
  const writable = new Set(Object.keys(ProviderWritable.shape));
  t.deepEqual(
    PROVIDER_DOC_KEYS.filter((k) => !writable.has(k)),
    [],
  );
});

test('a stored doc reads with absent lists as [] and absent optional fields as null, in answer order', (t) => {
  const view = toProviderView(row({ displayName: 'Dr. A', languageCodes: ['es'], extra: 'dropped' }));
  t.deepEqual(Object.keys(view).slice(0, 7), [
    'id',
    'organizationId',
    'externalId',
    'displayName',
    'email',
    'status',
    'searchable',
  ]);
  t.deepEqual(Object.keys(view).slice(-3), ['profileVersion', 'createdAt', 'updatedAt']);
  t.is(view.email, null);
  t.deepEqual(view.languageCodes, ['es']);
  t.deepEqual(view.specialtyCodes, []);
  t.deepEqual(view.licenseRecords, []);
  t.is(view.panelCapacity, null);
  t.false('extra' in view);
  t.deepEqual(Object.keys(providerDoc(view)), PROVIDER_DOC_KEYS);
  t.deepEqual(readProviderDoc(view), providerDoc(view));
});
