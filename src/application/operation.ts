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

/** What an operation records in the audit log, and what a call made with Service-Organization-Id adds to it. */
export interface OperationAudit {
  /** The action and resource type of the event recorded for a call made with the header that recorded none itself. */
  action: string;
  resourceType: string;
  /**
   * `read`: the operation records no audit event of its own. `write`: every successful call commits its own event
   * (with the request id) in the transaction of its change. `write-if-changed`: a successful call commits its own
   * event only when it changed something (a PATCH that changes nothing records none).
   */
  kind: 'read' | 'write' | 'write-if-changed';
}

/** One operation of the internal API. */
export interface OperationSpec {
  /** `key`: needs an API key (the default); `none`: the input itself is the credential (e.g. a confirmation token). */
  auth?: 'key' | 'none';
  audit: OperationAudit;
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
