/** A JSON answer: status, headers and parsed body. */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Sends a JSON request to the gateway. */
export async function request<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep text */
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Binds request() to a base URL and key. */
export function client(base: string, key?: string, extraHeaders: Record<string, string> = {}) {
  return {
    get: <T = any>(path: string, h: Record<string, string> = {}) =>
      request<T>(base, 'GET', path, { key, headers: { ...extraHeaders, ...h } }),
    post: <T = any>(path: string, body?: unknown, h: Record<string, string> = {}) =>
      request<T>(base, 'POST', path, { key, body, headers: { ...extraHeaders, ...h } }),
    put: <T = any>(path: string, body?: unknown, h: Record<string, string> = {}) =>
      request<T>(base, 'PUT', path, { key, body, headers: { ...extraHeaders, ...h } }),
    patch: <T = any>(path: string, body?: unknown, h: Record<string, string> = {}) =>
      request<T>(base, 'PATCH', path, { key, body, headers: { ...extraHeaders, ...h } }),
    delete: <T = any>(path: string, h: Record<string, string> = {}) =>
      request<T>(base, 'DELETE', path, { key, headers: { ...extraHeaders, ...h } }),
  };
}
