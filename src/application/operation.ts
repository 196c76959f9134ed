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
  /**
   * Set on a call that only checks the key ahead of the request's own call (GatewayService/CheckCredentials): that
   * call counts the request against the key's rate limit, so this one is not counted.
   */
  uncounted?: boolean;
  audit: OperationAudit;
  handler(caller: Caller, input: OperationInput): Promise<unknown>;
}

/**
 * One server-streaming operation of the internal API (e.g. following an actor). It checks its input and access, then
 * sends results through `send` until it returns or `signal` aborts (the client went away, or the server stops).
 * Throwing before the first `send` refuses the call like a unary operation's error.
 */
export interface StreamingOperationSpec {
  auth?: 'key';
  audit: OperationAudit;
  /** Marks the spec as streaming (the generated method is declared `returns (stream …)`). */
  streaming: true;
  stream(
    caller: Caller,
    input: OperationInput,
    send: (result: unknown) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void>;
}

/**
 * One RPC implemented on its typed messages (src/api/<service>/<rpc>.ts): the server hands it the decoded request
 * message and answers its response message as it is, with no REST input in between. It validates its request itself.
 */
export interface TypedOperationSpec {
  auth?: 'key';
  audit: OperationAudit;
  /** Marks the spec as typed. */
  typed: true;
  /**
   * Answers the response message, or an OperationAnswer carrying it with response headers (a replay under an
   * Idempotency-Key: `Idempotent-Replayed`).
   */
  handle(caller: Caller, request: object, call: TypedCall): Promise<object>;
}

/** What a typed RPC reads of its call beside the request message: the metadata passed on (`idempotency-key`). */
export interface TypedCall {
  headers: Record<string, string>;
}

/** A typed RPC's response message with response headers for the REST edge. */
export interface TypedAnswer<Res> extends OperationAnswer {
  result: Res;
}

/**
 * One server-streaming RPC implemented on its typed messages: the server hands it the decoded request message and
 * writes each message it sends as it is. Like StreamingOperationSpec, throwing before the first `send` refuses the
 * call like a unary operation's error.
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
): TypedOperationSpec {
  return { audit, typed: true, handle: handle as TypedOperationSpec['handle'] };
}

/** Operations of one gRPC service, keyed by RPC name (`CreateProvider`). */
export type OperationTable = Record<string, AnyOperationSpec>;

/** Any operation of a table. */
export type AnyOperationSpec =
  | OperationSpec
  | StreamingOperationSpec
  | TypedOperationSpec
  | TypedStreamingOperationSpec;

/** Answers whether an RPC is implemented on its typed messages. */
export function isTyped(spec: AnyOperationSpec): spec is TypedOperationSpec | TypedStreamingOperationSpec {
  return 'typed' in spec && spec.typed === true;
}

/** Answers whether an operation streams its results. */
export function isStreaming(spec: AnyOperationSpec): spec is StreamingOperationSpec | TypedStreamingOperationSpec {
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
