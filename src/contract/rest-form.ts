import type { ServiceError } from '../errors/service-error.js';

/** An operation's input as the REST gateway would give it. */
export interface RestInput {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

/**
 * How the gateway maps a route's REST form onto the RPC of another route (a v1 form onto the v2 RPC), one way each: the
 * REST input onto the RPC's request message, the RPC's answer into the route's JSON (by default the RPC's response
 * rendered with the route's `response`), and an error of the RPC back into the form's own field names. It holds no
 * rule: only field names, shapes and the REST version's defaults and narrower bounds. A form without `request` renders
 * only the answer of an RPC whose request its route's REST input maps onto by the route's own schemas (the v1 direct
 * path: the RPCs answer the booking resource, the form the v1 JSON of it).
 */
export interface RestForm {
  /**
   * The RPC's request message of a REST input; `own` maps an input with the route's own REST schemas
   * (request-message-of.ts), refusing what they cannot carry. Unset: `own` alone.
   */
  request?(input: RestInput, own: (input: RestInput) => Record<string, unknown>): Record<string, unknown>;
  /** The route's REST JSON of the RPC's response, given the RPC request it answers (unset: rendered by `response`). */
  response?(response: Record<string, unknown>, request: Record<string, unknown>): unknown;
  /** The error REST answers for an error of the RPC: its fields named as the REST input named them. */
  error?(err: ServiceError, input: RestInput): ServiceError;
}
