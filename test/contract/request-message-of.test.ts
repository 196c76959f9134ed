import test from 'ava';
import { requestMessageOf, pathParamsOfMessage } from '../../src/contract/request-message-of.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { ServiceError } from '../../src/errors/service-error.js';

const route = (rpc: string) => ALL_ROUTES.find((r) => r.rpc === rpc)!;
const input = (i: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown }) => ({
  params: {},
  query: {},
  body: undefined,
  ...i,
});

/** The refusal of a REST input the message cannot carry: its field and details. */
function refusal(rpc: string, i: Parameters<typeof input>[0]) {
  try {
    requestMessageOf(route(rpc), input(i));
  } catch (err) {
    if (err instanceof ServiceError) return { code: err.code, field: err.field, details: err.details };
    throw err;
  }
  throw new Error('accepted');
}

test('REST maps onto the typed request: paging names, enums, instants, a PATCH body and its mask', (t) => {
  t.deepEqual(requestMessageOf(route('ListOrganizations'), input({ query: { limit: '02', cursor: 'abc', x: 'y' } })), {
    pageSize: 2,
    pageToken: 'abc',
  });
  t.deepEqual(
    requestMessageOf(
      route('CreateOrganization'),
      input({ body: { externalId: 'a', name: 'A', settings: { plan: 'scale', allowUnverifiable: true }, extra: 1 } }),
    ),
    { externalId: 'a', name: 'A', settings: { plan: 'PLAN_SCALE', allowUnverifiable: true } },
    'a member the route does not name is left out, as the contract ignores it',
  );
  t.deepEqual(
    requestMessageOf(
      route('CreateApiKey'),
      input({ body: { type: 'organization_test', name: 'k', expiresAt: '2099-01-01T02:00:00+02:00' } }),
    ),
    { keyType: 'KEY_TYPE_ORGANIZATION_TEST', name: 'k', expiresAt: new Date('2099-01-01T00:00:00Z') },
  );
  const patch = requestMessageOf(
    route('UpdateOrganization'),
    input({ params: { id: 'org_1' }, body: { settings: { waitlistOfferTtlSeconds: 5 } } }),
  );
  t.deepEqual(patch, { id: 'org_1', settings: { waitlistOfferTtlSeconds: 5 }, updateMask: ['settings'] });
  t.deepEqual(pathParamsOfMessage(route('UpdateOrganization'), patch), { id: 'org_1' }, 'ranges are not judged here');
});

test('what the message cannot carry is refused with VALIDATION_ERROR, the field and every problem', (t) => {
  t.deepEqual(refusal('CreateOrganization', { body: { externalId: 7, name: '', settings: { plan: null } } }), {
    code: 'VALIDATION_ERROR',
    field: 'externalId',
    details: [
      { field: 'externalId', code: 'INVALID', message: 'Invalid input: expected string, received number' },
      { field: 'name', code: 'INVALID', message: 'must not be empty' },
      { field: 'name', code: 'INVALID', message: 'must not be blank' },
      {
        field: 'settings.plan',
        code: 'INVALID',
        message: 'Invalid option: expected one of "free"|"launch"|"scale"|"enterprise"',
      },
    ],
  });
  t.like(
    refusal('CreateOrganization', { body: { externalId: 'a', name: 'A', settings: { waitlistOfferTtlSeconds: 6.5 } } }),
    {
      field: 'settings.waitlistOfferTtlSeconds',
      details: [{ message: 'Invalid input: expected int, received number' }],
    },
  );
  t.like(refusal('ListOrganizations', { query: { limit: '-1' } }), {
    field: 'limit',
    details: [{ message: 'must be an integer' }],
  });
  t.like(refusal('ListApiKeys', { query: { limit: '99999999999999999999' } }), {
    field: 'limit',
    details: [{ message: 'Too big: expected int to be <=9007199254740991' }],
  });
  t.like(refusal('CreateApiKey', { body: { type: 'organization_test', name: 'k', expiresAt: 'soon' } }), {
    field: 'expiresAt',
    details: [{ message: 'must be an ISO 8601 timestamp' }],
  });
  t.like(refusal('UpdateOrganization', { params: { id: 'o' }, body: { name: null } }), {
    field: 'name',
    details: [{ message: 'Invalid input: expected string, received null' }],
  });
  t.like(refusal('CreateOrganization', { body: [] }), { field: '(body)' });
  t.like(refusal('CreateOrganization', { body: { externalId: 'a\u0000', name: 'A' } }), {
    field: 'externalId',
    details: [{ message: 'must not contain the NUL character (U+0000)' }],
  });
});
