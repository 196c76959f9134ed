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

/**
 * One RPC implemented on its typed messages (src/api/<service>/<rpc>.ts): the server hands it the decoded request
 * message and answers its response message as it is, with no REST input in between. It validates its request itself.
 */
export interface TypedOperationSpec {
  /** `key`: needs an API key (the default); `none`: the request itself is the credential (a confirmation token). */
  auth?: 'key' | 'none';
  /**
   * Set on a call that only checks the key ahead of the request's own call (GatewayService/CheckCredentials): that
   * call counts the request against the key's rate limit, so this one is not counted.
   */
  uncounted?: boolean;
  audit: OperationAudit;
  /** Marks the spec as typed. */
  typed: true;
  /**
   * Answers the response message, or `answer(response, headers)` when the call also sets REST response headers
   * (`Idempotent-Replayed`), carried as `rest-header-*` trailers.
   */
  handle(caller: Caller, request: object, call: TypedCall): Promise<object | OperationAnswer>;
}

/** What a typed RPC reads of its call besides the request message: the passed metadata (`idempotency-key`, `accept`). */
export interface TypedCall {
  headers: Record<string, string>;
}

/** A typed response message with the REST response headers its call sets. */
export type TypedAnswer<Res> = OperationAnswer & { result: Res };

/**
 * One server-streaming RPC implemented on its typed messages: the server hands it the decoded request message and
 * writes each message it sends as it is, until it returns or `signal` aborts (the client went away, or the server
 * stops). Throwing before the first `send` refuses the call like a unary operation's error.
 */
export interface TypedStreamingOperationSpec {
  auth?: 'key';
  audit: OperationAudit;
  /** Marks the spec as typed. */
  typed: true;
  /** Marks the spec as streaming. */
  streaming: true;
  stream(caller: Caller, request: object, send: (message: object) => Promise<void>, signal: AbortSignal): Promise<void>;
}

/** A typed server-streaming RPC of `audit` that runs `stream` (its request and messages are the generated types). */
export function typedStreamingOperation<Req extends object, Res extends object>(
  audit: OperationAudit,
  stream: (caller: Caller, request: Req, send: (message: Res) => Promise<void>, signal: AbortSignal) => Promise<void>,
): TypedStreamingOperationSpec {
  return { audit, typed: true, streaming: true, stream: stream as TypedStreamingOperationSpec['stream'] };
}

/** A typed RPC of `audit` that runs `handle` (its request and response are the generated ts-proto types). */
export function typedOperation<Req extends object, Res extends object>(
  audit: OperationAudit,
  handle: (caller: Caller, request: Req, call: TypedCall) => Promise<Res | TypedAnswer<Res>>,
  opts: { auth?: 'key' | 'none'; uncounted?: boolean } = {},
): TypedOperationSpec {
  return { ...opts, audit, typed: true, handle: handle as TypedOperationSpec['handle'] };
}

/** Operations of one gRPC service, keyed by RPC name (`CreateProvider`). */
export type OperationTable = Record<string, AnyOperationSpec>;

/** Any operation of a table. */
export type AnyOperationSpec = TypedOperationSpec | TypedStreamingOperationSpec;

/** Answers whether an operation streams its results. */
export function isStreaming(spec: AnyOperationSpec): spec is TypedStreamingOperationSpec {
  return 'streaming' in spec && spec.streaming === true;
}

/** Wraps a result with response headers. */
export function answer(result: unknown, headers: Record<string, string>): OperationAnswer {
  return Object.assign(Object.create(ANSWER_PROTO) as OperationAnswer, { result, headers });
}

const ANSWER_PROTO = {};

/** Answers whether a handler returned an OperationAnswer rather than a bare result. */
export function isAnswer(v: unknown): v is OperationAnswer {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === ANSWER_PROTO;
}
