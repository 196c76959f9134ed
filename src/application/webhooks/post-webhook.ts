import { lookup as dnsLookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { bareHost, forbiddenAddressReason, lookupAll, type WebhookLookup } from './webhook-target.js';

/** The whole time one webhook POST may take (connect, send, answer), after which the attempt fails. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

const PACKAGE_VERSION = String(
  (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version,
);

/** The User-Agent of every outbound webhook request. */
export const WEBHOOK_USER_AGENT = `scheduling-resolution-service-webhooks/${PACKAGE_VERSION}`;

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
  /** WEBHOOK_ALLOW_INSECURE_URLS: http and loopback/private targets allowed. */
  allowInsecure: boolean;
  /** DNS resolution (default dns.lookup); every connection's addresses go through the guard. */
  lookup?: WebhookLookup;
  /** @default WEBHOOK_TIMEOUT_MS */
  timeoutMs?: number;
}

/**
 * A lookup that resolves every address of the name and refuses the connection (before any socket connects) when one
 * of them is not public: a name that pointed at a public address when the webhook was saved and at 127.0.0.1 now
 * fails here (DNS rebinding).
 */
function guardedLookup(inner: WebhookLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookupAll(inner, hostname).then(
      (addresses) => {
        const bad = addresses.map((a) => forbiddenAddressReason(a.address)).find((r) => r !== undefined);
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
        if (bad)
          return callback(
            Object.assign(new Error(`refused to connect: ${hostname} resolves to ${bad}`), {
              code: 'EFORBIDDENADDRESS',
            }),
            '',
            0,
          );
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        const list = wanted.length > 0 ? wanted : addresses;
        if (options.all) return callback(null, list);
        callback(null, list[0]!.address, list[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/**
 * Builds the guarded POST: https (http only when insecure URLs are allowed), every connection's resolved addresses
 * checked (IP literals before connecting, names in the lookup), one total timeout, redirects never followed (a 3xx
 * is a failed attempt), keep-alive pools. Unless `allowInsecure`, only public addresses are reached.
 */
export function createWebhookPoster(opts: WebhookPosterOptions): WebhookPoster {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const lookup = opts.allowInsecure ? opts.lookup : guardedLookup(opts.lookup ?? dnsLookup);
  // Idle pooled sockets close after 800 ms, before a receiver's own keep-alive timeout (node's default is 5 s) can
  // close them under a new request.
  const agentOptions = { keepAlive: true, maxSockets: 256, timeout: 800, ...(lookup ? { lookup } : {}) };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  const once = (target: URL, body: string, headers: Record<string, string>, deadline: number) =>
    new Promise<PostResult & { retryable?: boolean }>((resolve) => {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const request = target.protocol === 'https:' ? https.request : http.request;
      let settled = false;
      const finish = (r: PostResult & { retryable?: boolean }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const req = request(
        target,
        {
          method: 'POST',
          agent: target.protocol === 'https:' ? httpsAgent : httpAgent,
          ...(lookup ? { lookup } : {}),
          headers: {
            ...headers,
            'Content-Type': 'application/json',
            'Content-Length': String(Buffer.byteLength(body)),
            'User-Agent': WEBHOOK_USER_AGENT,
          },
        },
        (res) => {
          const status = res.statusCode ?? null;
          res.resume();
          const done = () => {
            const ok = status !== null && status >= 200 && status < 300;
            const error = ok
              ? undefined
              : status !== null && status >= 300 && status < 400
                ? `receiver answered ${status}; redirects are not followed`
                : `receiver answered ${status}`;
            finish({ statusCode: status, latencyMs: elapsed(), ...(error ? { error } : {}) });
          };
          res.once('end', done);
          res.once('error', done);
          res.once('close', done);
        },
      );
      const timer = setTimeout(
        () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        Math.max(0, deadline - performance.now()),
      );
      req.once('error', (err: NodeJS.ErrnoException) => {
        // A pooled socket the receiver closed while idle fails at once without reaching it: one fresh try is safe.
        const retryable = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        finish({ statusCode: null, latencyMs: elapsed(), error: err.message || String(err.code), retryable });
      });
      req.end(body);
    });

  const post: PostWebhook = async (url, body, headers) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { statusCode: null, latencyMs: 0, error: 'the webhook URL is not a valid URL' };
    }
    if (target.protocol !== 'https:' && !(opts.allowInsecure && target.protocol === 'http:')) {
      return { statusCode: null, latencyMs: 0, error: `refused to connect: ${target.protocol} URLs are not allowed` };
    }
    if (!opts.allowInsecure) {
      // An IP literal skips the lookup, so it is checked here, before any socket exists.
      const host = bareHost(target);
      const reason = isIP(host) ? forbiddenAddressReason(host) : undefined;
      if (reason) return { statusCode: null, latencyMs: 0, error: `refused to connect: ${reason}` };
    }
    const deadline = performance.now() + timeoutMs;
    const first = await once(target, body, headers, deadline);
    const result = first.retryable ? await once(target, body, headers, deadline) : first;
    const { retryable: _ignored, ...out } = result;
    return out;
  };
  return {
    post,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
