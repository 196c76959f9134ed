import { performance } from 'node:perf_hooks';

/** One answered request: status, parsed JSON body (or text) and wall time in ms. */
export interface BenchResponse {
  status: number;
  body: any;
  ms: number;
}

/** A JSON client for the gateway bound to a base URL and API key; Node's fetch keeps connections alive. */
export interface BenchClient {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<BenchResponse>;
  get(path: string, headers?: Record<string, string>): Promise<BenchResponse>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<BenchResponse>;
}

/**
 * Creates a client (with headers sent on every call); the timing covers sending, the answer and reading its whole body.
 * Given several base URLs (service processes), calls go to them in turn, as a round-robin load balancer would send them.
 */
export function createBenchClient(baseUrls: string | readonly string[], key: string, defaultHeaders: Record<string, string> = {}): BenchClient {
  const urls = typeof baseUrls === 'string' ? [baseUrls] : baseUrls;
  let turn = 0;
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<BenchResponse> => {
    const baseUrl = urls[turn++ % urls.length]!;
    const h: Record<string, string> = { authorization: `Bearer ${key}`, ...defaultHeaders, ...headers };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
    const t0 = performance.now();
    const res = await fetch(`${baseUrl}${path}`, { method, headers: h, body: payload });
    const text = await res.text();
    const ms = performance.now() - t0;
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON: keep the text */ }
    return { status: res.status, body: parsed, ms };
  };
  return {
    request,
    get: (path, headers) => request('GET', path, undefined, headers),
    post: (path, body, headers) => request('POST', path, body, headers),
  };
}

/** Throws with the answer's body unless the status is one of `ok`. */
export function expectStatus(res: BenchResponse, what: string, ok: readonly number[] = [200, 201, 202]): BenchResponse {
  if (!ok.includes(res.status)) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res;
}
