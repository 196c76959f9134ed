import type { Caller } from './caller.js';

/** What an operation receives, whichever door the call came through. */
export interface OperationInput {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  /** Selected request headers passed on as metadata (`idempotency-key`, `accept`). */
  headers: Record<string, string>;
}

/** An answer with response headers for the REST edge (e.g. `Idempotent-Replayed`). */
export interface OperationAnswer {
  result: unknown;
  headers: Record<string, string>;
}

/** One operation of the internal API. */
export interface OperationSpec {
  /** `key`: needs an API key (the default); `none`: the input itself is the credential (e.g. a confirmation token). */
  auth?: 'key' | 'none';
  /** Audit action recorded when a platform key calls with Service-Organization-Id and the handler wrote no audit itself. */
  audit: { action: string; resourceType: string };
  handler(caller: Caller, input: OperationInput): Promise<unknown>;
}

/** Operations of one gRPC service, keyed by RPC name (`CreateProvider`). */
export type OperationTable = Record<string, OperationSpec>;

/** Wraps a result with response headers. */
export function answer(result: unknown, headers: Record<string, string>): OperationAnswer {
  return Object.assign(Object.create(ANSWER_PROTO) as OperationAnswer, { result, headers });
}

const ANSWER_PROTO = {};

/** Answers whether a handler returned an OperationAnswer rather than a bare result. */
export function isAnswer(v: unknown): v is OperationAnswer {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === ANSWER_PROTO;
}
