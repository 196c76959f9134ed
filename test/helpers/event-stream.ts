import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { InspectorServiceClient } from '../../src/gen/scheduling/v1/inspector_service.js';
import { restOfResponse, typedRequest } from './typed-messages.js';

/** One Server-Sent Event. */
export interface SseEvent {
  event: string;
  data: string;
}

/** An event stream as a client sees it: a refusal (status and JSON body) or events read one at a time. */
export interface EventStreamClient {
  status: number;
  headers: Headers;
  /** The JSON body of a refusal (any answer that is not `text/event-stream`). */
  body: any;
  /** The next event, which must come within `withinMs` (a deadline, not a sleep). */
  next(withinMs: number, label?: string): Promise<SseEvent>;
  /** Resolves with `Date.now()` when the server ends the stream (or the client closed it). */
  ended: Promise<number>;
  close(): void;
}

/** Opens `path` on `base` as an event stream with fetch (as the console does). */
export async function openEventStream(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<EventStreamClient> {
  const abort = new AbortController();
  const res = await fetch(`${base}${path}`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  let done = false;
  let wake: (() => void) | undefined;
  let markEnded!: (at: number) => void;
  const ended = new Promise<number>((r) => (markEnded = r));
  let body: any;
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    void (async () => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      try {
        for (;;) {
          const { value, done: finished } = await reader.read();
          if (finished) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const lines = buffer.slice(0, end).split('\n');
            buffer = buffer.slice(end + 2);
            if (lines.every((l) => l.startsWith(':'))) continue;
            events.push({
              event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message',
              data: lines
                .filter((l) => l.startsWith('data: '))
                .map((l) => l.slice(6))
                .join('\n'),
            });
          }
          wake?.();
        }
      } catch {
        /* closed by the client */
      }
      done = true;
      markEnded(Date.now());
      wake?.();
    })();
  } else {
    const text = await res.text();
    body = text ? JSON.parse(text) : undefined;
    done = true;
    markEnded(Date.now());
  }
  return {
    status: res.status,
    headers: res.headers,
    body,
    ended,
    async next(withinMs, label = 'event') {
      const deadline = Date.now() + withinMs;
      while (events.length === 0) {
        if (done) throw new Error(`${label}: the stream ended`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`${label}: no event within ${withinMs} ms`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, left);
        });
      }
      return events.shift()!;
    },
    close: () => abort.abort(),
  };
}

/** How a direct gRPC WatchActor call began: with a first view, or refused with a status. */
export type WatchStart = { view: any } | { error: ServiceError };

/** A direct gRPC WatchActor call of the inspector. */
export interface DirectWatch {
  /** The first message or the refusal. */
  started: Promise<WatchStart>;
  /** Resolves with the error that ended the call (a cancelled call too) and `Date.now()` then. */
  ended: Promise<{ error: ServiceError; at: number }>;
  cancel(): void;
}

/** Opens WatchActor on `target` with `key` (and `organizationId` as Service-Organization-Id when given). */
export function watchDirect(
  target: string,
  key: string,
  params: { kind: string; id: string },
  organizationId?: string,
): DirectWatch {
  const inspector = new InspectorServiceClient(target, credentials.createInsecure());
  const md = new Metadata();
  md.set('authorization', `Bearer ${key}`);
  if (organizationId) md.set('service-organization-id', organizationId);
  const call = inspector.watchActor(typedRequest('WatchActor', { params }), md);
  let markStarted!: (s: WatchStart) => void;
  const started = new Promise<WatchStart>((r) => (markStarted = r));
  const ended = new Promise<{ error: ServiceError; at: number }>((resolve) =>
    call.on('error', (error: ServiceError) => {
      markStarted({ error });
      resolve({ error, at: Date.now() });
      inspector.close();
    }),
  );
  call.on('data', (m: unknown) => markStarted({ view: restOfResponse('WatchActor', m) }));
  return { started, ended, cancel: () => call.cancel() };
}
