import type { ServiceError } from '../errors/service-error.js';

/** An operation's input as the REST gateway would give it. */
export interface RestInput {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

/**
 * How the gateway maps a route's REST form onto the RPC of another route (a v1 form onto the v2 RPC), one way: the
 * REST input onto the RPC's request message, and an error of the RPC back into the form's own field names. Its answer
 * is the RPC's response rendered with the route's `response`.
 */
export interface RestForm {
  /** The route's openapi `operationId` (its `rpc` is another route's). */
  operationId: string;
  /**
   * The RPC's request message of a REST input; `own` maps an input with the route's own REST schemas
   * (request-message-of.ts), refusing what they cannot carry.
   */
  request(input: RestInput, own: (input: RestInput) => Record<string, unknown>): Record<string, unknown>;
  /** The error REST answers for an error of the RPC: its fields named as the REST input named them. */
  error?(err: ServiceError, input: RestInput): ServiceError;
}
