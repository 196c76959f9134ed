import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import type { RouteSpec } from '../../src/contract/route.js';
import type { z } from 'zod';
import {
  messageOfRestInput,
  objectToRest,
  requestGroups,
  restOfResponseMessage,
  type RestInput,
} from '../../src/contract/typed-message.js';
import { protoFieldNameIn } from '../../src/contract/proto-shape.js';

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

/**
 * The REST input of a typed request message (a ts-proto object): path and query fields become strings as in a URL,
 * body fields the JSON of the contract. A field left at its protobuf default without presence is "not given". The
 * inverse of `typedRequest`, for tests that check a message carries a REST input exactly (the service itself maps
 * one way only: REST onto the message, request-message-of.ts).
 */
export function restInputOfMessage(route: RouteSpec, message: Record<string, unknown>): RestInput {
  const input: RestInput = { params: {}, query: {}, body: undefined };
  for (const group of requestGroups(route)) {
    const json = objectToRest(group.schema, 'input', message);
    if (group.kind === 'body') input.body = maskedBody(group.schema, json, message.updateMask as string[] | undefined);
    else for (const [k, v] of Object.entries(json)) input[group.kind][k] = queryText(v);
  }
  return input;
}

/**
 * The PATCH body a field mask asks for: exactly the named fields, a named field left unset as null (clear it).
 * Without a mask (or an empty one) the body is the fields that are set.
 */
function maskedBody(
  schema: z.ZodObject,
  json: Record<string, unknown>,
  mask: string[] | undefined,
): Record<string, unknown> {
  if (!mask || mask.length === 0) return json;
  const body: Record<string, unknown> = {};
  for (const path of mask) {
    const key = Object.keys(schema.shape).find((k) => k === path || protoFieldNameIn(schema, k) === path);
    if (key === undefined)
      throw new Error(`updateMask names "${path.slice(0, 100)}", which is not a field of this update`);
    body[key] = json[key] ?? null;
  }
  return body;
}

/** A value as it is spelled in a path or query string. */
function queryText(v: unknown): string {
  if (Array.isArray(v)) return v.map(queryText).join(',');
  return typeof v === 'string' ? v : String(v);
}
