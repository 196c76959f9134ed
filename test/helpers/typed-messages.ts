import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import type { RouteSpec } from '../../src/contract/route.js';
import { messageOfRestInput, restOfResponseMessage, type RestInput } from '../../src/contract/typed-message.js';

/** The REST route of an RPC (by its name, `GetActor`). */
export function routeOf(rpc: string): RouteSpec {
  const route = ALL_ROUTES.find((r) => r.rpc === rpc);
  if (!route) throw new Error(`no route has the RPC ${rpc}`);
  return route;
}

/** The typed request of an RPC written as its REST input (path and query as text, the JSON body): tests' shorthand. */
export function typedRequest(rpc: string, input: Partial<RestInput>): any {
  return messageOfRestInput(routeOf(rpc), { params: {}, query: {}, body: undefined, ...input });
}

/** The REST JSON of a typed response message of an RPC (what the gateway would answer). */
export function restOfResponse(rpc: string, message: unknown): any {
  return restOfResponseMessage(routeOf(rpc), message as Record<string, unknown>);
}
