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
 * rule: only field names, shapes and the REST version's defaults and narrower bounds.
 */
export interface RestForm {
  /**
   * The RPC's request message of a REST input; `own` maps an input with the route's own REST schemas
   * (request-message-of.ts), refusing what they cannot carry.
   */
  request(input: RestInput, own: (input: RestInput) => Record<string, unknown>): Record<string, unknown>;
  /** The route's REST JSON of the RPC's response, given the RPC request it answers (unset: rendered by `response`). */
  response?(response: Record<string, unknown>, request: Record<string, unknown>): unknown;
  /** The error REST answers for an error of the RPC: its fields named as the REST input named them. */
  error?(err: ServiceError, input: RestInput): ServiceError;
}

/**
 * A REST form whose route's own schemas read the REST input first (a v1 read): `request` maps that message onto the
 * RPC's request, throwing the contract's VALIDATION_ERROR for a value the route bounds narrower; `response` renders
 * the RPC's answer as the route's JSON.
 */
export interface RestView {
  request(message: Record<string, unknown>): Record<string, unknown>;
  response(response: Record<string, unknown>, request: Record<string, unknown>): unknown;
}

/** The REST form of a view: the route's own mapping, then the view's. */
export function restFormOfView(view: RestView): RestForm {
  return { request: (input, own) => view.request(own(input)), response: (r, q) => view.response(r, q) };
}
