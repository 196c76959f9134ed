import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { ResponseTally } from './response-tally.js';

/** One answered request: status (0 for a transport failure), parsed JSON body (or text) and wall time in ms. */
export interface BenchResponse {
  status: number;
  body: any;
  ms: number;
  /** The answer's Retry-After in seconds, when it carried one. */
  retryAfterSeconds?: number;
}

/** Keep-alive connection pools to one or more service processes, shared by the clients of a run. */
export interface HttpTarget {
  origins: readonly string[];
  /** The pool of the next origin in turn (a round-robin, as a load balancer in front of several processes). */
  next(): Pool;
  close(): Promise<void>;
}

/** A JSON client for the gateway bound to an API key and headers sent on every call. */
export interface BenchClient {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<BenchResponse>;
  get(path: string, headers?: Record<string, string>): Promise<BenchResponse>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<BenchResponse>;
}

/**
 * Opens undici pools (HTTP/1.1 keep-alive, no pipelining) to `origins`; `connections` bounds each pool, and a
 * closed loop of N clients never has more than N requests in flight, so it uses at most N connections.
 */
export function createHttpTarget(origins: string | readonly string[], connections = 256): HttpTarget {
  const list = typeof origins === 'string' ? [origins] : [...origins];
  const pools = list.map(
    (o) => new Pool(o, { connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 }),
  );
  let turn = 0;
  return {
    origins: list,
    next: () => pools[turn++ % pools.length]!,
    close: async () => {
      await Promise.all(pools.map((p) => p.close()));
    },
  };
}

/**
 * Creates a client over `target` sending `Authorization: Bearer <key>` (when given) and `headers` on every call.
 * The timing covers sending, the answer and reading its whole body; every answer is counted in `tally`.
 */
export function createBenchClient(
  target: HttpTarget,
  o: { key?: string; headers?: Record<string, string>; tally?: ResponseTally } = {},
): BenchClient {
  const base: Record<string, string> = { ...(o.key ? { authorization: `Bearer ${o.key}` } : {}), ...o.headers };
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<BenchResponse> => {
    const h: Record<string, string> = { ...base, ...headers };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
    const t0 = performance.now();
    let status: number;
    let text: string;
    let retryAfter: string | string[] | undefined;
    try {
      const res = await target.next().request({ method: method as 'GET', path, headers: h, body: payload });
      status = res.statusCode;
      retryAfter = res.headers['retry-after'];
      text = await res.body.text();
    } catch (err) {
      // A broken connection or refused request is a failure of the service the client must see, like a 5xx.
      const code = (err as { code?: string }).code ?? (err as Error).name;
      o.tally?.record(`transport ${code}`, true, undefined, String(err));
      return { status: 0, body: { error: { code, message: String(err) } }, ms: performance.now() - t0 };
    }
    const ms = performance.now() - t0;
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    o.tally?.record(String(status), status >= 500, parsed?.error?.code, parsed);
    const after = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
    return {
      status,
      body: parsed,
      ms,
      ...(retryAfter !== undefined && Number.isFinite(after) ? { retryAfterSeconds: after } : {}),
    };
  };
  return {
    request,
    get: (path, headers) => request('GET', path, undefined, headers),
    post: (path, body, headers) => request('POST', path, body, headers),
  };
}

/** Throws with the answer's body unless the status is one of `ok`. */
export function expectStatus(res: BenchResponse, what: string, ok: readonly number[] = [200, 201, 202]): BenchResponse {
  if (!ok.includes(res.status))
    throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res;
}
