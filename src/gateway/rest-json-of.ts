import type { RouteSpec } from '../contract/route.js';
import { restOfResponseMessage } from '../contract/typed-message.js';

/**
 * The REST JSON text of a typed response message, rendered with the route's response shape (typed-message.ts), or by
 * the route's REST form of another route's RPC (RouteSpec.restForm), given the `request` it answers; `null` for a
 * route that answers nothing.
 */
export function restJsonOf(
  route: RouteSpec,
  response: Record<string, unknown>,
  request: Record<string, unknown> = {},
): string {
  if (!route.response) return 'null';
  const rest = route.restForm?.response
    ? route.restForm.response(response, request)
    : restOfResponseMessage(route, response);
  return JSON.stringify(rest ?? null);
}
