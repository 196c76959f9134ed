import test from 'ava';
import { randomUUID } from 'node:crypto';
import { toDomainProvider } from '../../src/application/resolution/org-graph.js';
import { compileEligibilityRequest, evaluateProviders, type EligibilityRequest } from '../../src/domain/eligibility.js';
import { reviewReasonOf } from '../../src/domain/eligibility/review-reason.js';
import { REVIEW_STREAM } from '../../src/persistence/review-queue.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { recordHandedOffReview } from '../helpers/review-recording.js';
import { createSeededRandom } from '../helpers/seeded-random.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// CONTRACT part 7: manual review is recorded off the request path. This service runs no workers, so nothing records
// a sighting until a test does (recordHandedOffReview: what the review-recorder worker does within moments).
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock, env: { SERVICE_ROLES: 'gateway,grpc' } });
});
test.after.always(async () => {
  await svc?.stop();
});

const MINUTE = 60_000;
const idem = () => ({ 'idempotency-key': randomUUID() });
const license = (region: string, extra: Record<string, unknown> = {}) => ({
  licenseTypeCode: 'psy',
  regionCode: region,
  status: 'active',
  expiresAt: '2030-01-01',
  verifiedAt: '2026-01-01T00:00:00Z',
  ...extra,
});

/** An organization with one provider who matches, one who speaks no language and one without a license. */
async function clinic(name: string) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 8)}`);
  const known = await providerWithService(o, {
    externalId: 'known',
    languageCodes: ['en'],
    licenseRecords: [license('US-CA')],
  });
  const silent = await providerWithService(o, { externalId: 'silent', licenseRecords: [license('US-CA')] });
  const unlicensed = await providerWithService(o, { externalId: 'unlicensed', languageCodes: ['en'] });
  const resolve = () =>
    o.api.post(
      '/api/v2/resolutions',
      {
        serviceId: known.service.id,
        constraints: { languageCodes: { anyOf: ['en'] }, licenseRegionCodes: { anyOf: ['US-CA'] } },
        dateRange: { from: '2026-03-03', to: '2026-03-05' },
      },
      idem(),
    );
  return { o, known, silent, unlicensed, resolve };
}

/** The organization's manual-review rows as stored. */
async function reviewRows(organizationId: string) {
  const r = await svc.service.deps.db.query(
    `SELECT provider_id, reasons, status, first_seen_at, last_seen_at FROM manual_review_entries
      WHERE organization_id = $1 ORDER BY provider_id`,
    [organizationId],
  );
  return r.rows.map((row) => ({
    providerId: row.provider_id as string,
    reasons: row.reasons as unknown[],
    status: row.status as string,
    firstSeenAt: (row.first_seen_at as Date).toISOString(),
    lastSeenAt: (row.last_seen_at as Date).toISOString(),
  }));
}

/** Sightings handed off and not recorded yet. */
const handedOff = async () => Number(await svc.service.deps.redis.xLen(REVIEW_STREAM.key));

test.serial(
  'a resolution writes no manual-review row itself: its unknown providers appear once the recorder ran',
  async (t) => {
    const c = await clinic('review-off-path');
    const at = clock().toISOString();
    const r = await c.resolve();
    t.is(r.status, 200, JSON.stringify(r.body));
    t.is(r.body.options[0]?.provider.id, c.known.provider.id);
    t.deepEqual(await reviewRows(c.o.org.id), [], 'the answer left before any review row was written');
    t.is(await handedOff(), 1, 'one sighting handed off');
    await recordHandedOffReview(svc);
    const expected = [
      {
        providerId: c.silent.provider.id,
        reasons: [
          { code: 'LANGUAGE_MISMATCH', field: 'languageCodes', detail: 'required ["en"]; provider data missing' },
        ],
      },
      {
        providerId: c.unlicensed.provider.id,
        reasons: [
          { code: 'LICENSE_MISSING', field: 'licenseRegionCodes', detail: 'required ["US-CA"]; provider data missing' },
        ],
      },
    ].sort((a, b) => (a.providerId < b.providerId ? -1 : 1));
    t.deepEqual(
      await reviewRows(c.o.org.id),
      expected.map((e) => ({ ...e, status: 'open', firstSeenAt: at, lastSeenAt: at })),
    );
    t.is(await handedOff(), 0);
  },
);

test.serial('the same unknown set is handed off once a minute; lastSeenAt moves after the window', async (t) => {
  const c = await clinic('review-window');
  const first = clock().toISOString();
  t.is((await c.resolve()).status, 200);
  t.is(await handedOff(), 1);
  await recordHandedOffReview(svc);

  clock.advance(30_000);
  t.is((await c.resolve()).status, 200);
  t.is(await handedOff(), 0, 'the same set within the minute is not handed off again');
  clock.advance(29_000);
  t.is((await c.resolve()).status, 200);
  t.is(await handedOff(), 0);
  t.deepEqual(
    (await reviewRows(c.o.org.id)).map((e) => e.lastSeenAt),
    [first, first],
  );

  clock.advance(2_000);
  const later = clock().toISOString();
  t.is((await c.resolve()).status, 200);
  t.is(await handedOff(), 1, 'a minute after, the set is handed off again');
  await recordHandedOffReview(svc);
  t.deepEqual(
    (await reviewRows(c.o.org.id)).map((e) => [e.firstSeenAt, e.lastSeenAt]),
    [
      [first, later],
      [first, later],
    ],
  );
});

test.serial(
  'a resolved entry reopens at the next sighting, even within the minute; a late older sighting does not',
  async (t) => {
    const c = await clinic('review-reopen');
    const first = clock().toISOString();
    t.is((await c.resolve()).status, 200);
    await recordHandedOffReview(svc);

    clock.advance(10_000);
    const resolved = await c.o.api.post(`/api/v2/manual-review/${c.silent.provider.id}/resolve`);
    t.is(resolved.status, 200);
    t.is(resolved.body.status, 'resolved');
    clock.advance(10_000);
    const seenAgain = clock().toISOString();
    t.is((await c.resolve()).status, 200);
    t.is(await handedOff(), 1, 'the resolve lets the next sighting through');
    await recordHandedOffReview(svc);
    const reopened = (await c.o.api.get('/api/v2/manual-review')).body.data.find(
      (e: any) => e.providerId === c.silent.provider.id,
    );
    t.like(reopened, { status: 'open', resolvedAt: null, firstSeenAt: first, lastSeenAt: seenAgain });

    // A sighting still waiting for the recorder when the entry is resolved does not reopen it: it is older.
    clock.advance(2 * MINUTE);
    t.is((await c.resolve()).status, 200);
    t.is(await handedOff(), 1);
    clock.advance(10_000);
    t.is((await c.o.api.post(`/api/v2/manual-review/${c.silent.provider.id}/resolve`)).status, 200);
    await recordHandedOffReview(svc);
    const after = (await c.o.api.get('/api/v2/manual-review?status=resolved')).body.data.map((e: any) => e.providerId);
    t.deepEqual(after, [c.silent.provider.id]);
  },
);

test.serial('the 422 LICENSE_REGION_MISMATCH answer hands its unknown providers off too', async (t) => {
  const o = await newOrganization(svc, `review-422-${randomUUID().slice(0, 8)}`);
  const a = await providerWithService(o, {
    externalId: 'unverified',
    licenseRecords: [license('US-NY', { verifiedAt: undefined })],
  });
  await providerWithService(o, {
    externalId: 'inactive-license',
    licenseRecords: [license('US-NY', { status: 'inactive' })],
  });
  const r = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: a.service.id,
      constraints: { licenseRegionCodes: { anyOf: ['US-NY'] } },
      dateRange: { from: '2026-03-03', to: '2026-03-05' },
    },
    idem(),
  );
  t.is(r.status, 422);
  t.deepEqual(await reviewRows(o.org.id), []);
  await recordHandedOffReview(svc);
  t.deepEqual(
    (await reviewRows(o.org.id)).map((e) => [e.providerId, e.reasons]),
    [
      [
        a.provider.id,
        [
          {
            code: 'LICENSE_UNVERIFIED',
            field: 'licenseRegionCodes',
            detail: 'required ["US-NY"]; provider data self_reported',
          },
        ],
      ],
    ],
  );
});

test.serial(
  'manual review holds what recording every resolution per provider held (reasons, first and last seen)',
  async (t) => {
    const o = await newOrganization(svc, `review-same-${randomUUID().slice(0, 8)}`);
    const r = createSeededRandom(22);
    const some = <T>(xs: readonly T[]) => r.sample(xs, r.int(0, xs.length));
    let serviceId = '';
    for (let i = 0; i < 30; i++) {
      const made = await providerWithService(
        o,
        {
          externalId: `p${i}`,
          languageCodes: some(['en', 'es']),
          insurancePlanCodes: some(['bcbs', 'uhc']),
          licenseRecords: some(['US-CA', 'US-NY']).map((region) =>
            license(region, {
              status: r.pick(['active', 'active', 'inactive']),
              expiresAt: r.pick(['2030-01-01', '2026-01-15']),
              ...(r.chance(0.3)
                ? { verifiedAt: undefined }
                : r.chance(0.3)
                  ? { verifiedAt: '2024-06-01T00:00:00Z' }
                  : {}),
            }),
          ),
          ...(r.chance(0.7) ? { acceptsNewClients: r.chance(0.8) } : {}),
        },
        { schedule: null },
      );
      serviceId ||= made.service.id;
    }
    const providers = (await o.api.get('/api/v2/providers?limit=500')).body.data.map(toDomainProvider);
    const requests: EligibilityRequest[] = [
      { languageCodes: ['en'], insurancePlanCodes: ['bcbs'], licenseRegionCodes: ['US-CA', 'US-NY'] },
      { languageCodes: ['es'], acceptsNewClients: true },
      { insurancePlanCodes: ['uhc'], licenseRegionCodes: ['US-NY'], acceptsNewClients: true },
    ];
    // What a resolution recorded on main, per provider, at the clock of each request (each a few minutes apart).
    const expected = new Map<string, { reasons: unknown[]; firstSeenAt: string; lastSeenAt: string }>();
    let unknownSeen = 0;
    for (const request of requests) {
      clock.advance(3 * MINUTE);
      const now = clock();
      const verdicts = evaluateProviders(providers, compileEligibilityRequest(request, { now }));
      for (const v of verdicts) {
        if (v.status !== 'unknown') continue;
        unknownSeen++;
        const reasons = v.exclusions.filter((x) => x.status === 'unknown').map((x) => reviewReasonOf(x));
        const firstSeenAt = expected.get(v.providerId)?.firstSeenAt ?? now.toISOString();
        expected.set(v.providerId, { reasons, firstSeenAt, lastSeenAt: now.toISOString() });
      }
      const constraints = Object.fromEntries(
        Object.entries(request).map(([k, v]) => [k, Array.isArray(v) ? { anyOf: v } : v]),
      );
      const answer = await o.api.post(
        '/api/v2/resolutions',
        { serviceId, constraints, dateRange: { from: '2026-03-10', to: '2026-03-12' } },
        idem(),
      );
      t.true([200, 422].includes(answer.status), JSON.stringify(answer.body));
      await recordHandedOffReview(svc);
      t.deepEqual(
        (await reviewRows(o.org.id)).map(({ status, ...e }) => e),
        [...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([providerId, e]) => ({ providerId, ...e })),
        JSON.stringify(request),
      );
    }
    t.true(unknownSeen > 10, `the requests found providers unknown (${unknownSeen})`);
  },
);
