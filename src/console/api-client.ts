import type { Session } from './session.js';

/** An error answered by the API, in the contract's envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/** Query values; undefined and empty strings are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** The REST API as the console calls it: the session's key and organization on every request. */
export interface ApiClient {
  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T>;
  /**
   * A write. It carries `opts.idempotencyKey` when given (an action retried by its person keeps its key: see
   * `idempotentAction`), else a fresh Idempotency-Key.
   */
  send<T>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    opts?: { idempotencyKey?: string },
  ): Promise<T>;
  /** Reads a `text/event-stream` answer, calling `onEvent` per event until the signal aborts or the stream ends. */
  stream(path: string, onEvent: (event: string, data: string) => void, signal: AbortSignal): Promise<void>;
}

function withQuery(path: string, query: Query | undefined): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

async function failure(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => undefined)) as
    | { error?: { code?: string; message?: string; field?: string; requestId?: string } }
    | undefined;
  const e = body?.error;
  return new ApiError(
    res.status,
    e?.code ?? `HTTP_${res.status}`,
    e?.message ?? res.statusText,
    e?.field,
    e?.requestId ?? res.headers.get('x-service-request-id') ?? undefined,
  );
}

/** Creates the client for a session. Every write carries an Idempotency-Key, so a retried action never acts twice. */
export function createApiClient(session: Session): ApiClient {
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    authorization: `Bearer ${session.key}`,
    accept: 'application/json',
    ...(session.organizationId ? { 'service-organization-id': session.organizationId } : {}),
    ...extra,
  });
  return {
    async get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
      const res = await fetch(withQuery(path, query), { headers: headers(), signal, cache: 'no-store' });
      if (!res.ok) throw await failure(res);
      return (await res.json()) as T;
    },
    async send<T>(
      method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      path: string,
      body?: unknown,
      opts?: { idempotencyKey?: string },
    ): Promise<T> {
      const extra: Record<string, string> = { 'idempotency-key': opts?.idempotencyKey ?? crypto.randomUUID() };
      if (body !== undefined) extra['content-type'] = 'application/json';
      const res = await fetch(path, {
        method,
        headers: headers(extra),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw await failure(res);
      return (res.status === 204 ? undefined : await res.json()) as T;
    },
    async stream(path: string, onEvent: (event: string, data: string) => void, signal: AbortSignal): Promise<void> {
      const res = await fetch(path, { headers: headers({ accept: 'text/event-stream' }), signal, cache: 'no-store' });
      if (!res.ok || !res.body) throw await failure(res);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let event = 'message';
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) event = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (data.length > 0) onEvent(event, data.join('\n'));
          }
        }
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
    },
  };
}
