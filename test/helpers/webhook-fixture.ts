import type { OutboundLookup } from '../../src/application/outbound/guarded-lookup.js';
import { client } from './http.js';
import { startTestService, type TestService } from './test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { livePlatformKey } from './live-platform-key.js';

/** A plan of CONTRACT part 2. */
export type Plan = 'free' | 'launch' | 'scale' | 'enterprise';

/** An organization made for a webhook test, with clients acting in it through a live and a test key. */
export interface WebhookTestOrg {
  id: string;
  live: ReturnType<typeof client>;
  test: ReturnType<typeof client>;
}

/**
 * Two services on their own stores and one local receiver: `svc` allows http/loopback webhook URLs (so the receiver
 * can be the target); `strict` runs with the production URL rules and a DNS lookup the test supplies. The receiver
 * answers each organization as `answers` says (a status, or `hang`), 200 by default.
 */
export interface WebhookFixture {
  svc: TestService;
  strict: TestService;
  receiver: WebhookReceiver;
  answers: Map<string, number | 'hang'>;
  /** A platform_live key of each service (the test service's own platform key is a test key). */
  liveKey(s: TestService): string;
  /** A fresh organization of `s` (default `svc`) on `plan` (default launch). */
  newOrg(opts?: { plan?: Plan; service?: TestService }): Promise<WebhookTestOrg>;
  stop(): Promise<void>;
}

/** Starts the fixture; `env` is added to `svc`'s environment. */
export async function startWebhookFixture(opts: {
  lookup: OutboundLookup;
  env?: Record<string, string>;
}): Promise<WebhookFixture> {
  const receiver = await startWebhookReceiver();
  const answers = new Map<string, number | 'hang'>();
  receiver.answer((r) => {
    const a = answers.get(r.body?.organizationId);
    return a === 'hang' ? 'hang' : { status: a ?? 200 };
  });
  const [svc, strict] = await Promise.all([
    startTestService({ env: { WEBHOOK_ALLOW_INSECURE_URLS: '1', ...opts.env } }),
    startTestService({ outboundLookup: opts.lookup }),
  ]);
  const keys = new Map<TestService, string>();
  for (const s of [svc, strict]) keys.set(s, await livePlatformKey(s));
  let orgCount = 0;
  return {
    svc,
    strict,
    receiver,
    answers,
    liveKey: (s) => keys.get(s)!,
    async newOrg({ plan = 'launch', service = svc } = {}) {
      const key = keys.get(service)!;
      const org = (
        await client(service.url, key).post('/api/v2/organizations', {
          externalId: `wh-${++orgCount}`,
          name: `Webhooks ${orgCount}`,
          settings: { plan },
        })
      ).body;
      return {
        id: org.id as string,
        live: client(service.url, key, { 'service-organization-id': org.id }),
        test: client(service.url, service.platformKey, { 'service-organization-id': org.id }),
      };
    },
    async stop() {
      await Promise.all([svc.stop(), strict.stop()]);
      await receiver.stop();
    },
  };
}
