import test from 'ava';
import { requestMessageOf, pathParamsOfMessage } from '../../src/contract/request-message-of.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { ServiceError } from '../../src/errors/service-error.js';

/** The route of an RPC, or (a path) of a REST form of another route's RPC. */
const route = (rpc: string) => ALL_ROUTES.find((r) => (rpc.startsWith('/') ? r.path === rpc : r.rpc === rpc))!;
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

test('a member the route never takes (z.never(): a PATCH of a service naming its provider) is refused in its rule’s words', (t) => {
  const never = 'cannot be changed; create a service for the other provider instead';
  t.deepEqual(refusal('UpdateService', { params: { id: 'svc_1' }, body: { providerId: 'prv_2', duration: 2.5 } }), {
    code: 'VALIDATION_ERROR',
    field: 'providerId',
    details: [
      { field: 'providerId', code: 'INVALID', message: never },
      { field: 'duration', code: 'INVALID', message: 'Invalid input: expected int, received number' },
    ],
  });
  t.like(refusal('UpdateService', { params: { id: 'svc_1' }, body: { providerId: null } }), {
    field: 'providerId',
    details: [{ message: never }],
  });
  t.deepEqual(
    requestMessageOf(route('UpdateService'), input({ params: { id: 'svc_1' }, body: { price: null, duration: 40 } })),
    { id: 'svc_1', duration: 40, updateMask: ['duration', 'price'] },
    'a null clears a nullable field: unset, named by the mask',
  );
});

test('what the message would lose is refused: a required list left out, a member never taken, a closed object’s stranger', (t) => {
  const schedule = { providerId: 'prv_1', timezone: 'UTC' };
  t.deepEqual(
    refusal('CreateCalendarConnection', {
      body: { ...schedule, days: { monday: { enabled: true } }, overrides: [{ date: '2026-03-02' }] },
    }),
    {
      code: 'VALIDATION_ERROR',
      field: 'days.monday.slots',
      details: [
        { field: 'days.monday.slots', code: 'REQUIRED', message: 'is required' },
        { field: 'overrides.0.slots', code: 'REQUIRED', message: 'is required' },
      ],
    },
    'a list read as empty would have been a closed day and a day off',
  );
  t.deepEqual(
    refusal('UpdateCalendarConnection', { params: { id: 'cal_1' }, body: { providerId: 'prv_2', title: 'x' } }),
    {
      code: 'VALIDATION_ERROR',
      field: 'providerId',
      details: [
        {
          field: 'providerId',
          code: 'INVALID',
          message: 'cannot be changed; create a connection for the other provider instead',
        },
      ],
    },
  );
  t.like(
    refusal('CreateCalendarConnection', { body: { ...schedule, days: { funday: { enabled: true, slots: [] } } } }),
    {
      field: 'days.funday',
      details: [
        {
          code: 'INVALID',
          message: 'Unknown day "funday"; use monday, tuesday, wednesday, thursday, friday, saturday, sunday.',
        },
      ],
    },
  );
  t.deepEqual(
    requestMessageOf(
      route('UpdateCalendarConnection'),
      input({
        params: { id: 'cal_1' },
        body: { days: { friday: { enabled: false, slots: [] } }, overrides: [], x: 1 },
      }),
    ),
    { id: 'cal_1', days: { friday: { enabled: false, slots: [] } }, overrides: [], updateMask: ['days', 'overrides'] },
    'an empty list given is carried; a member the body does not name is ignored outside a closed object',
  );
});

test('a strict object refuses each member it does not name, in the words of its rule; a required list or empty-taking text left out is refused', (t) => {
  // weights is a strict object: a hard-constraint key or an unknown key has no field of the message to go to.
  const weights = refusal('CreateRankingPolicy', {
    body: { name: 'P', weights: { preferredLanguage: 5, languageCodes: 10, popularity: 1 } },
  });
  t.is(weights.field, 'weights.languageCodes');
  t.deepEqual(
    weights.details?.map((d) => [d.field, d.code]),
    [
      ['weights.languageCodes', 'INVALID'],
      ['weights.popularity', 'INVALID'],
    ],
  );
  t.regex(weights.details![0]!.message, /^languageCodes is a hard constraint, and hard constraints are never weights/);
  t.regex(weights.details![1]!.message, /^is not a weight key; use one of preferredLanguage/);
  // Members of an object that is not strict are still left out.
  t.deepEqual(requestMessageOf(route('CreateRankingPolicy'), input({ body: { name: 'P', other: 1 } })), { name: 'P' });

  // A list has no presence in protobuf: a required one left out would read as an empty one, so it is refused here; an
  // empty one is carried (as the empty list it is).
  t.deepEqual(refusal('SimulateRankingPolicy', { params: { id: 'pol_1' }, body: {} }), {
    code: 'VALIDATION_ERROR',
    field: 'candidates',
    details: [{ field: 'candidates', code: 'REQUIRED', message: 'is required' }],
  });
  t.deepEqual(
    requestMessageOf(route('SimulateRankingPolicy'), input({ params: { id: 'pol_1' }, body: { candidates: [] } })),
    { id: 'pol_1', candidates: [] },
  );
  // A required string without presence whose rule takes '' (a blank display name) is carried as ''; left out, it is
  // refused here, as it would otherwise read as ''.
  t.deepEqual(
    requestMessageOf(
      route('SimulateRankingPolicy'),
      input({ params: { id: 'pol_1' }, body: { candidates: [{ providerId: 'p', displayName: '', slotStart: 'x' }] } }),
    ),
    { id: 'pol_1', candidates: [{ providerId: 'p', displayName: '', slotStartText: 'x' }] },
  );
  t.deepEqual(
    refusal('SimulateRankingPolicy', {
      params: { id: 'pol_1' },
      body: { candidates: [{ providerId: 'p', slotStart: 'x' }] },
    }),
    {
      code: 'VALIDATION_ERROR',
      field: 'candidates.0.displayName',
      details: [{ field: 'candidates.0.displayName', code: 'REQUIRED', message: 'is required' }],
    },
  );
  // An empty string stays refused where the rule refuses it too (providerId: 1 to 200 characters).
  t.is(
    refusal('SimulateRankingPolicy', {
      params: { id: 'pol_1' },
      body: { candidates: [{ providerId: '', displayName: 'P', slotStart: 'x' }] },
    }).field,
    'candidates.0.providerId',
  );
  // The slot start travels as the text sent: its offset decides day parts.
  t.deepEqual(
    requestMessageOf(
      route('SimulateRankingPolicy'),
      input({
        params: { id: 'pol_1' },
        body: { candidates: [{ providerId: 'p', displayName: 'P', slotStart: '2026-03-02T09:00:00-05:00' }] },
      }),
    ),
    { id: 'pol_1', candidates: [{ providerId: 'p', displayName: 'P', slotStartText: '2026-03-02T09:00:00-05:00' }] },
  );
});

test('a list of free-form values (an import’s rows) is carried item by item as sent; left out, it is refused as required', (t) => {
  const rows = [
    { externalId: 'a', languageCodes: [], licenseRecords: [{ verifiedAt: '2026-01-01T00:00:00+02:00' }] },
    7,
    null,
    'x',
  ];
  t.deepEqual(requestMessageOf(route('CreateProviderImport'), input({ body: { providers: rows, dryRun: true } })), {
    providerRowValues: rows,
    dryRun: true,
  });
  t.deepEqual(requestMessageOf(route('CreateProviderImport'), input({ body: { providers: [] } })), {
    providerRowValues: [],
  });
  t.like(refusal('CreateProviderImport', { body: {} }), { code: 'VALIDATION_ERROR', field: 'providers' });
  t.is(refusal('CreateProviderImport', { body: {} }).details?.[0]?.code, 'REQUIRED');
  t.like(refusal('CreateProviderImport', { body: { providers: { a: 1 } } }), { field: 'providers' });
});

test('a body member declared refused (refused-members.ts) is refused first with its own error, whatever else the body holds', (t) => {
  const reschedule = (body: unknown) => refusal('RescheduleBooking', { params: { id: 'bkg_1' }, body });
  const combined = (field: string) => ({
    code: 'COMBINED_DATETIME_NOT_ACCEPTED',
    field,
    details: undefined,
  });
  t.like(reschedule({ datetime: '2026-03-05T10:00:00-05:00' }), combined('datetime'));
  t.like(reschedule({ start: '2026-03-05T15:00:00Z', date: '2026-03-05', time: '10:00' }), combined('start'));
  t.like(
    reschedule({ date: 5, time: null, datetime: 'x' }),
    combined('datetime'),
    'before what the message cannot carry',
  );
  // Its value does not matter (a null too), and the schema's zod parse and openapi.json are unchanged.
  t.like(reschedule({ datetime: null }), combined('datetime'));
  t.deepEqual(
    requestMessageOf(
      route('RescheduleBooking'),
      input({ params: { id: 'bkg_1' }, body: { date: '2026-03-05', time: '10:00', other: 1 } }),
    ),
    { id: 'bkg_1', date: '2026-03-05', time: '10:00' },
    'another member the route does not name is still ignored',
  );
  const message = (() => {
    try {
      requestMessageOf(route('RescheduleBooking'), input({ params: { id: 'b' }, body: { datetime: 'x' } }));
    } catch (err) {
      return (err as ServiceError).message;
    }
  })();
  t.is(message, 'Send separate `date` (YYYY-MM-DD) and `time` (HH:MM) fields instead of `datetime`.');
});

test('the v1 form of a resolution maps onto CreateResolution: one code is a list of one, under its v2 name', (t) => {
  const v1 = route('/api/v1/resolutions');
  const body = {
    service: 'svc',
    constraints: {
      languages: 'EN',
      modalityCodes: ['virtual'],
      modality: ['in_person'],
      insurance: [],
      licenseRegionCodes: ['US-CA'],
      acceptsNewClients: true,
    },
    dateRange: { from: '2026-03-03', to: '2026-03-04' },
  };
  // The v2 name wins over the v1 one; an empty list is no constraint; license regions, which v1 ignores, are left out.
  t.deepEqual(requestMessageOf(v1, input({ body })), {
    serviceId: 'svc',
    v1Rules: true,
    constraints: {
      languageCodes: { anyOf: ['EN'] },
      modalityCodes: { anyOf: ['virtual'] },
      acceptsNewClients: true,
    },
    dateRange: { fromDate: '2026-03-03', toDate: '2026-03-04' },
  });
  // The losing v1 list is not carried, so it is judged at the edge, as v1 judged it.
  const losing = { ...body, constraints: { modalityCodes: ['virtual'], modality: ['by pigeon'] } };
  t.throws(() => requestMessageOf(v1, input({ body: losing })), { message: 'constraints.modality: Invalid input' });
  // A single value the REST rule refuses is refused in its words, as REST answered it.
  const one = { body: { ...body, constraints: { languages: 'not a language' } } };
  t.deepEqual(refusal('/api/v1/resolutions', one), {
    code: 'VALIDATION_ERROR',
    field: 'constraints.languages',
    details: [{ field: 'constraints.languages', code: 'INVALID', message: 'Invalid input' }],
  });
});
