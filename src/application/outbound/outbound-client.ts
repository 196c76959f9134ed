import { lookup as dnsLookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { inspectOutboundUrl, type OutboundUrlRules } from './check-outbound-url.js';
import { guardedLookup, type OutboundLookup } from './guarded-lookup.js';

const PACKAGE_VERSION = String(
  (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version,
);

/** The User-Agent of one kind of outbound call: `scheduling-resolution-service-<purpose>/<version>`. */
export function outboundUserAgent(purpose: string): string {
  return `scheduling-resolution-service-${purpose}/${PACKAGE_VERSION}`;
}

/** Options of createOutboundClient. */
export interface OutboundClientOptions extends OutboundUrlRules {
  /** DNS resolution (default dns.lookup); unless `allowInsecure`, every answer goes through the guard. */
  lookup?: OutboundLookup | undefined;
  userAgent: string;
  /** Keeps idle connections for reuse (the webhook sender); off, each call opens its own. @default false */
  keepAlive?: boolean;
}

/** One outbound call. */
export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole time the call may take: every redirect hop, connecting, sending and reading. */
  timeoutMs: number;
  /** Redirects followed (GET only), each hop checked like the first; 0: a 3xx is the answer. @default 0 */
  maxRedirects?: number;
  /** The body of a 2xx is read up to this many bytes and the call fails beyond; unset, every body is discarded. */
  maxBytes?: number;
  /** Media types a 2xx may carry (lowercase, parameters ignored); another fails the call before its body is read. */
  contentTypes?: readonly string[];
}

/** Why a call got no usable answer: a closed set, so what callers show is chosen from a fixed vocabulary. */
export type OutboundFailureKind =
  /** The URL does not parse. */
  | 'invalid_url'
  /** The guard refused the URL or the address (scheme, credentials, a non-public address); nothing connected there. */
  | 'refused'
  /** The name does not resolve, or the connection failed or broke. */
  | 'unreachable'
  /** No complete answer within `timeoutMs`. */
  | 'timeout'
  /** More than `maxRedirects` redirects. */
  | 'too_many_redirects'
  /** The body is larger than `maxBytes`. */
  | 'too_large'
  /** A 2xx whose media type is not one of `contentTypes`. */
  | 'content_type';

/** What a call gave: an answer (any status), or a failure whose `detail` is for logs and the caller's own records. */
export type OutboundResult =
  | { kind: 'answer'; status: number; body: Buffer | undefined; latencyMs: number; redirects: number }
  | {
      kind: 'failure';
      failure: OutboundFailureKind;
      /** The status of the answer the failure concerns, null when none came. */
      status: number | null;
      /** What happened, naming the URL's parts and the addresses tried; never any text of an answer. */
      detail: string;
      latencyMs: number;
      redirects: number;
    };

/** The guarded HTTP client every outbound call of the service uses (webhooks, calendar feeds). */
export interface OutboundClient {
  /** Makes one call; never throws for network failures. */
  request(url: string, req: OutboundRequest): Promise<OutboundResult>;
  /** Closes pooled connections. */
  close(): void;
}

/** What one hop gave before redirects are looked at. */
type HopResult =
  | { kind: 'answer'; status: number; location: string | undefined; body: Buffer | undefined }
  | { kind: 'failure'; failure: OutboundFailureKind; status: number | null; detail: string; retryable?: boolean };

/** The media type of a Content-Type header, lowercase without parameters. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Builds the guarded client. Unless `allowInsecure`: https only (http too with `allowHttp`), no credentials in the
 * URL, and only public addresses are reached: an IP literal is checked before connecting and a name's every DNS
 * answer is checked in the connection's lookup, before any socket connects (DNS rebinding). Each redirect hop is a
 * new URL checked the same way. One total timeout; an optional size cap read as the body streams; an optional
 * content-type check before the body is read.
 */
export function createOutboundClient(opts: OutboundClientOptions): OutboundClient {
  const rules: OutboundUrlRules = {
    allowInsecure: opts.allowInsecure,
    ...(opts.allowHttp !== undefined ? { allowHttp: opts.allowHttp } : {}),
    ...(opts.classify ? { classify: opts.classify } : {}),
  };
  const lookup = opts.allowInsecure ? opts.lookup : guardedLookup(opts.lookup ?? dnsLookup, opts.classify);
  // Idle pooled sockets close after 800 ms, before a receiver's own keep-alive timeout (node's default is 5 s) can
  // close them under a new request.
  const agentOptions = {
    keepAlive: opts.keepAlive ?? false,
    ...(opts.keepAlive ? { maxSockets: 256, timeout: 800 } : {}),
    ...(lookup ? { lookup } : {}),
  };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  const hop = (target: URL, req: OutboundRequest, deadline: number, follow: boolean) =>
    new Promise<HopResult>((resolve) => {
      const isHttps = target.protocol === 'https:';
      let settled = false;
      let timedOut = false;
      const finish = (r: HopResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const body = req.method === 'POST' ? (req.body ?? '') : undefined;
      const request = (isHttps ? https.request : http.request)(
        target,
        {
          method: req.method,
          agent: isHttps ? httpsAgent : httpAgent,
          ...(lookup ? { lookup } : {}),
          headers: {
            ...req.headers,
            ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}),
            'User-Agent': opts.userAgent,
          },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const location = status >= 300 && status < 400 ? res.headers.location : undefined;
          if (location !== undefined && follow) {
            // A redirect that will be followed: its body is of no use, and waiting for it only spends the timeout.
            finish({ kind: 'answer', status, location, body: undefined });
            return void res.destroy();
          }
          const readBody = req.maxBytes !== undefined && status >= 200 && status < 300;
          if (!readBody) {
            // The status is the answer; the body is drained (bounded by the timeout) so the socket can be reused.
            res.resume();
            const done = () => finish({ kind: 'answer', status, location, body: undefined });
            res.once('end', done);
            res.once('error', done);
            res.once('close', done);
            return;
          }
          const max = req.maxBytes!;
          const refuse = (failure: OutboundFailureKind, detail: string) => {
            finish({ kind: 'failure', failure, status, detail });
            request.destroy();
          };
          const type = mediaType(res.headers['content-type']);
          if (req.contentTypes && !req.contentTypes.includes(type))
            return refuse('content_type', `answered ${status} with content type "${type.slice(0, 100)}"`);
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > max)
            return refuse('too_large', `answered ${status} with ${declared} bytes, more than ${max}`);
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > max) return refuse('too_large', `answered ${status} with more than ${max} bytes`);
            chunks.push(chunk);
          });
          res.once('end', () => finish({ kind: 'answer', status, location, body: Buffer.concat(chunks) }));
          const broken = () =>
            finish(
              timedOut
                ? {
                    kind: 'failure',
                    failure: 'timeout',
                    status,
                    detail: `no complete answer within ${req.timeoutMs} ms`,
                  }
                : { kind: 'failure', failure: 'unreachable', status, detail: 'the answer broke off' },
            );
          res.once('error', broken);
          res.once('close', () => (res.complete ? undefined : broken()));
        },
      );
      const timer = setTimeout(
        () => {
          timedOut = true;
          request.destroy(Object.assign(new Error(`no answer within ${req.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
        },
        Math.max(0, deadline - performance.now()),
      );
      request.once('error', (err: NodeJS.ErrnoException) => {
        const failure: OutboundFailureKind =
          err.code === 'ETIMEDOUT' ? 'timeout' : err.code === 'EFORBIDDENADDRESS' ? 'refused' : 'unreachable';
        // A pooled socket the receiver closed while idle fails at once without reaching it: one fresh try is safe.
        const retryable = request.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        finish({ kind: 'failure', failure, status: null, detail: err.message || String(err.code), retryable });
      });
      request.end(body);
    });

  return {
    async request(url, req) {
      const started = performance.now();
      const deadline = started + req.timeoutMs;
      const elapsed = () => Math.round(performance.now() - started);
      const maxRedirects = req.method === 'GET' ? (req.maxRedirects ?? 0) : 0;
      let raw = url;
      let base: URL | undefined;
      for (let redirects = 0; ; redirects++) {
        const inspected = inspectOutboundUrl(raw, rules, base);
        if (inspected.refusal) {
          const { code, reason } = inspected.refusal;
          return {
            kind: 'failure',
            failure: code === 'INVALID_URL' ? 'invalid_url' : 'refused',
            status: null,
            detail: code === 'INVALID_URL' ? 'the URL is not a valid URL' : `refused to connect: ${reason}`,
            latencyMs: elapsed(),
            redirects,
          };
        }
        const attempt = () =>
          hop(inspected.url, req, deadline, maxRedirects > 0).catch(
            // node:http throws for what it cannot send (a header value it refuses): a failed call, not an exception.
            (err: Error): HopResult => ({ kind: 'failure', failure: 'unreachable', status: null, detail: err.message }),
          );
        const first = await attempt();
        const r = first.kind === 'failure' && first.retryable ? await attempt() : first;
        if (r.kind === 'failure') {
          const { retryable: _ignored, ...failure } = r;
          return { ...failure, latencyMs: elapsed(), redirects };
        }
        if (r.location === undefined || maxRedirects === 0)
          return { kind: 'answer', status: r.status, body: r.body, latencyMs: elapsed(), redirects };
        if (redirects >= maxRedirects)
          return {
            kind: 'failure',
            failure: 'too_many_redirects',
            status: r.status,
            detail: `more than ${maxRedirects} redirects`,
            latencyMs: elapsed(),
            redirects,
          };
        raw = r.location;
        base = inspected.url;
      }
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
