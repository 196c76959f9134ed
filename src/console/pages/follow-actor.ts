import type { z } from 'zod';
import type { ActorView } from '../../contract/schemas/inspector.js';
import { ApiError, type ApiClient } from '../api-client.js';

/** An actor as GET /api/v2/inspector/actors/:kind/:id answers it (and each `actor` event of its stream carries). */
export type ActorViewBody = z.infer<typeof ActorView>;

/** How the live follow stands, for the page's "Live" indicator. */
export type LiveState =
  | { mode: 'connecting' }
  | { mode: 'live' }
  /** The stream route is not served: the page reads the actor every second instead. */
  | { mode: 'polling' }
  | { mode: 'reconnecting'; inMs: number; problem: unknown }
  /** Following ended for good (the key was refused, the actor expired from the store). */
  | { mode: 'stopped'; problem: unknown };

/** What followActor needs: the actor, where to hand each new view and the indicator's state, and when to stop. */
export interface FollowActorOptions {
  api: ApiClient;
  kind: string;
  id: string;
  signal: AbortSignal;
  onView(view: ActorViewBody): void;
  onState(state: LiveState): void;
  /** Poll period when the stream route is missing; 1 s. */
  pollMs?: number;
}

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10_000;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** An `error` event of the stream: the contract's envelope, which ends the stream. */
function streamError(data: string): ApiError {
  const body = JSON.parse(data) as { error?: { code?: string; message?: string; field?: string; requestId?: string } };
  const e = body.error ?? {};
  const code = e.code ?? 'STREAM_ERROR';
  return new ApiError(
    code.endsWith('_NOT_FOUND') ? 404 : 500,
    code,
    e.message ?? 'The stream ended with an error.',
    e.field,
    e.requestId,
  );
}

/** Refusals that a retry cannot fix: a refused key, another organization's actor, an actor gone from the store. */
const isFinal = (err: unknown): boolean =>
  err instanceof ApiError &&
  (err.status === 400 ||
    err.status === 401 ||
    err.status === 403 ||
    (err.status === 404 && err.code !== 'ROUTE_NOT_FOUND'));

async function poll(opts: FollowActorOptions, path: string): Promise<void> {
  opts.onState({ mode: 'polling' });
  let failing = false;
  while (!opts.signal.aborted) {
    await pause(opts.pollMs ?? 1000, opts.signal);
    if (opts.signal.aborted) return;
    try {
      opts.onView(await opts.api.get<ActorViewBody>(path, undefined, opts.signal));
      if (failing) opts.onState({ mode: 'polling' });
      failing = false;
    } catch (err) {
      if (opts.signal.aborted) return;
      if (isFinal(err)) return opts.onState({ mode: 'stopped', problem: err });
      failing = true;
      opts.onState({ mode: 'reconnecting', inMs: opts.pollMs ?? 1000, problem: err });
    }
  }
}

/**
 * Follows one actor until `signal` aborts: reads GET …/stream (Server-Sent Events) and hands every `actor` event to
 * `onView`; when the stream drops it reconnects after 0.5 s, doubling up to 10 s while it keeps failing (a view
 * resets the wait). If the service has no stream route (404 ROUTE_NOT_FOUND) it reads the actor every second instead.
 */
export async function followActor(opts: FollowActorOptions): Promise<void> {
  const path = `/api/v2/inspector/actors/${encodeURIComponent(opts.kind)}/${encodeURIComponent(opts.id)}`;
  let wait = FIRST_RETRY_MS;
  while (!opts.signal.aborted) {
    opts.onState({ mode: 'connecting' });
    let problem: unknown = new Error('The live stream closed.');
    try {
      let ended: ApiError | undefined;
      await opts.api.stream(
        `${path}/stream`,
        (event, data) => {
          if (event === 'actor') {
            wait = FIRST_RETRY_MS;
            opts.onState({ mode: 'live' });
            opts.onView(JSON.parse(data) as ActorViewBody);
          } else if (event === 'error') ended = streamError(data);
        },
        opts.signal,
      );
      if (ended) throw ended;
    } catch (err) {
      if (opts.signal.aborted) return;
      if (err instanceof ApiError && err.status === 404 && err.code === 'ROUTE_NOT_FOUND') return poll(opts, path);
      if (isFinal(err)) return opts.onState({ mode: 'stopped', problem: err });
      problem = err;
    }
    if (opts.signal.aborted) return;
    opts.onState({ mode: 'reconnecting', inMs: wait, problem });
    await pause(wait, opts.signal);
    wait = Math.min(wait * 2, LAST_RETRY_MS);
  }
}
