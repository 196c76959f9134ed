import type { OutboundLookup } from '../outbound/guarded-lookup.js';
import { createOutboundClient, outboundUserAgent } from '../outbound/outbound-client.js';

/** The whole time one webhook POST may take (connect, send, answer), after which the attempt fails. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The User-Agent of every outbound webhook request. */
export const WEBHOOK_USER_AGENT = outboundUserAgent('webhooks');

/** What one POST gave: the status (null when no answer came), the time it took, and why it failed. */
export interface PostResult {
  statusCode: number | null;
  latencyMs: number;
  /** Set when the attempt failed: no answer, a refused address, a redirect or another non-2xx status. */
  error?: string;
}

/** Posts one signed webhook body; never throws for network failures. */
export type PostWebhook = (url: string, body: string, headers: Record<string, string>) => Promise<PostResult>;

/** A webhook poster with its connection pools. */
export interface WebhookPoster {
  post: PostWebhook;
  /** Closes pooled connections. */
  close(): void;
}

/** Options of createWebhookPoster. */
export interface WebhookPosterOptions {
  /** OUTBOUND_ALLOW_INSECURE_URLS: http and loopback/private targets allowed. */
  allowInsecure: boolean;
  /** DNS resolution (default dns.lookup); every connection's addresses go through the guard. */
  lookup?: OutboundLookup | undefined;
  /** @default WEBHOOK_TIMEOUT_MS */
  timeoutMs?: number;
}

/**
 * Builds the webhook POST on the guarded outbound client: https (http only when insecure URLs are allowed), only
 * public addresses unless `allowInsecure` (checked at every connection), one total timeout, redirects never followed
 * (a 3xx is a failed attempt), keep-alive pools, the answer's body discarded.
 */
export function createWebhookPoster(opts: WebhookPosterOptions): WebhookPoster {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const client = createOutboundClient({
    allowInsecure: opts.allowInsecure,
    lookup: opts.lookup,
    userAgent: WEBHOOK_USER_AGENT,
    keepAlive: true,
  });

  const post: PostWebhook = async (url, body, headers) => {
    const r = await client.request(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body,
      timeoutMs,
      maxRedirects: 0,
    });
    if (r.kind === 'failure') {
      const error = r.failure === 'invalid_url' ? 'the webhook URL is not a valid URL' : r.detail;
      return { statusCode: r.status, latencyMs: r.latencyMs, error };
    }
    const ok = r.status >= 200 && r.status < 300;
    const error = ok
      ? undefined
      : r.status >= 300 && r.status < 400
        ? `receiver answered ${r.status}; redirects are not followed`
        : `receiver answered ${r.status}`;
    return { statusCode: r.status, latencyMs: r.latencyMs, ...(error ? { error } : {}) };
  };
  return { post, close: () => client.close() };
}
