import test from 'ava';
import { randomUUID } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

// A service with the production admission defaults (no setting here touches them). One key sends all the load, so
// its per-key quota (a plan setting, not a capacity limit) is raised out of the way.
let svc: TestService;
let org: Awaited<ReturnType<typeof newOrganization>>;
let serviceId: string;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
const agent = new Agent({ connections: 256 });

test.before(async () => {
  svc = await startTestService({
    clock,
    env: { RATE_LIMIT_PER_MINUTE: '1000000' },
  });
  org = await newOrganization(svc, 'overload-org');
  const languages = [['en'], ['es', 'en'], ['en', 'fr']];
  const made: { service: { id: string } }[] = [];
  for (let i = 0; i < 36; i += 12) {
    made.push(
      ...(await Promise.all(
        Array.from({ length: 12 }, (_, j) =>
          providerWithService(org, { externalId: `p${i + j}`, languageCodes: languages[(i + j) % 3]! }),
        ),
      )),
    );
  }
  serviceId = made[0]!.service.id;
});
test.after.always(async () => {
  await agent.close();
  await svc?.stop();
});

/** Creates one resolution through REST: its status and Retry-After. */
async function resolve(): Promise<{ status: number; retryAfter: string | null; code?: string }> {
  const res = await undiciFetch(`${svc.url}/api/v2/resolutions`, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      authorization: `Bearer ${org.key}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify({
      serviceId,
      constraints: { languageCodes: { anyOf: ['en'] } },
      dateRange: { from: '2026-03-02', to: '2026-03-09' },
    }),
  });
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code };
}

/** Counts answers by status. */
const byStatus = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((m, st) => ({ ...m, [st]: (m[st] ?? 0) + 1 }), {});

test.serial(
  'bursts at an idle service wait their turn instead of being refused: 20 resolutions, then 100 reads',
  async (t) => {
    let t0 = Date.now();
    const resolutions = await Promise.all(Array.from({ length: 20 }, () => resolve()));
    t.log(`20 resolutions answered in ${Date.now() - t0} ms`);
    t.deepEqual(byStatus(resolutions.map((a) => a.status)), { 200: 20 });
    // Let the first burst's work (its audit and events) settle, so the second arrives at an idle service again.
    await new Promise((r) => setTimeout(r, 500));
    t0 = Date.now();
    const reads = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const res = await undiciFetch(`${svc.url}/api/v2/caller`, {
          dispatcher: agent,
          headers: { authorization: `Bearer ${org.key}` },
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    t.log(`100 reads answered in ${Date.now() - t0} ms`);
    const m = await (await fetch(`${svc.url}/metrics`)).text();
    t.log(m.split('\n').filter((l) => l.startsWith('scheduling_admission_shed_total')));
    t.deepEqual(byStatus(reads), { 200: 100 });
  },
);

test.serial(
  'a sustained overload is refused with Retry-After, never a 500, and the service recovers within 2 s of it ending',
  async (t) => {
    // Closed-loop clients retrying at once for 4 s, three times the most a door runs at once (64): an overload whether
    // the process's loop or PostgreSQL (short of CPU beside other test files) is what saturates.
    const until = Date.now() + 4000;
    const tally = new Map<string, number>();
    const count = (k: string) => tally.set(k, (tally.get(k) ?? 0) + 1);
    await Promise.all(
      Array.from({ length: 192 }, async () => {
        while (Date.now() < until) {
          const a = await resolve();
          count(String(a.status));
          if (a.status === 503) {
            if (a.retryAfter !== '1' || a.code !== 'SERVICE_UNAVAILABLE') count('503 without Retry-After');
          }
        }
      }),
    );
    const ended = Date.now();
    t.log(Object.fromEntries(tally));
    t.true((tally.get('200') ?? 0) > 0, 'work is still done under overload');
    t.true((tally.get('503') ?? 0) > 0, 'the overload is refused');
    t.is(tally.get('503 without Retry-After'), undefined);
    t.deepEqual(
      [...tally.keys()].filter((k) => k !== '200' && k !== '503'),
      [],
      'only answers and refusals',
    );
    // Recovery: within 2 s of the load ending, a client is served (polled every 100 ms).
    let recovered: number | undefined;
    while (Date.now() - ended < 2000) {
      if ((await resolve()).status === 200) {
        recovered = Date.now() - ended;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    t.not(recovered, undefined, 'served again within 2 s');
    // And 3 s after the load ended, a burst is served whole again (no state outlives the load that set it).
    await new Promise((r) => setTimeout(r, Math.max(0, ended + 3000 - Date.now())));
    const burst = await Promise.all(Array.from({ length: 20 }, () => resolve()));
    t.deepEqual(
      burst.map((a) => a.status).filter((s) => s !== 200),
      [],
    );
  },
);
