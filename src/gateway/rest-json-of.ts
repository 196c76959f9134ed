import type { RouteSpec } from '../contract/route.js';
import { restOfResponseMessage } from '../contract/typed-message.js';

/**
 * The REST JSON text of a typed response message, rendered with the route's response shape (typed-message.ts); `null`
 * for a route that answers nothing.
 */
export function restJsonOf(route: RouteSpec, response: Record<string, unknown>): string {
  if (!route.response) return 'null';
  return JSON.stringify(restOfResponseMessage(route, response) ?? null);
}
