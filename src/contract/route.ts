import type { z } from 'zod';
import type { ErrorCode } from '../errors/error-catalogue.js';
import type { GrpcServiceName } from './grpc-service-name.js';
import type { RestForm } from './rest-form.js';

/** One REST route of the contract and the RPC it maps onto; the single source for gateway routing and openapi.json. */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Koa path, e.g. `/api/v2/providers/:id`. */
  path: string;
  service: GrpcServiceName;
  rpc: string;
  /** openapi.json's `operationId` when it is not the RPC's name in lowerCamelCase (a v1 route on a renamed RPC). */
  operationId?: string;
  summary: string;
  /**
   * What a caller needs beyond the summary, in a sentence or two: what the operation does, limits and side effects.
   * openapi.json adds who may call (from `auth`, `platformKeyOnly` or `access`) and the route's own error codes.
   */
  description: string;
  /** Who may call, when it is not "any key, acting in its organization" (set `platformKeyOnly` for platform keys). */
  access?: string;
  tag: string;
  /** HTTP status of success (default 200). */
  successStatus?: number;
  /** `key` (default) or `none` (the input is the credential). */
  auth?: 'key' | 'none';
  platformKeyOnly?: boolean;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Set when the body may be left out (the operation reads a missing body as `{}`); openapi.json then says so. */
  bodyOptional?: boolean;
  response?: z.ZodType;
  /**
   * Set when the route answers a browser an HTML page instead of `response` (when the request does not accept JSON): the
   * response message then has `html_page`, and the operation answers the page as text with a `text/html` content type.
   */
  htmlAnswer?: true;
  /** Request headers this route reads beyond Authorization. */
  headers?: { name: string; required: boolean; description: string }[];
  /**
   * Examples for openapi.json where the one generated from the schemas would not pass them (a request whose fields
   * depend on each other, an id that must decode); every example is checked against its zod schema by the tests.
   */
  examples?: { request?: unknown; response?: unknown };
  /** Error codes specific to the route (common ones are added by openapi generation). */
  errors?: ErrorCode[];
  /**
   * Set when the RPC streams its results: the route answers `text/event-stream` (Server-Sent Events), one event named
   * `event` per message with the message's JSON (of `response`'s shape) as data. Errors before the first message are
   * the usual JSON error envelope.
   */
  stream?: { format: 'sse'; event: string };
  /**
   * Set on a route whose REST form maps onto the RPC of another route (a v1 route): `rpc` names that RPC, whose
   * messages are the other route's, and the gateway maps this route's REST input and answer onto them (rest-form.ts);
   * the proto has no messages of this route. Without a `request` mapping, the route's REST input is the RPC's request
   * (the route is its RPC's route) and only the answer is rendered by the form (the v1 direct path).
   */
  restForm?: RestForm;
}
