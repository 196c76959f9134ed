import { isDeepStrictEqual } from 'node:util';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import type { RouteSpec } from '../contract/route.js';
import { messageOfRestInput, requestGroups, restInputOfMessage, type RestInput } from '../contract/typed-message.js';
import { protoFieldName } from '../contract/proto-shape.js';
import { GRPC_SERVICES } from '../grpc/service-registry.js';

const methods = new Map<RouteSpec, MethodDefinition<unknown, unknown> | null>();

/** The generated method of a route's RPC (its serializers), or null for a route without one. */
function methodOf(route: RouteSpec): MethodDefinition<unknown, unknown> | null {
  let m = methods.get(route);
  if (m === undefined) {
    const def = GRPC_SERVICES[route.service].definition as ServiceDefinition;
    m =
      (Object.values(def).find((d) => d.path.endsWith(`/${route.rpc}`)) as
        | MethodDefinition<unknown, unknown>
        | undefined) ?? null;
    methods.set(route, m);
  }
  return m;
}

/** True when a value is a JSON object (not null, not an array). */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The typed request message of a REST request, or undefined when the message cannot carry it exactly: a string where
 * a number goes, a null, an unknown member, an enum value out of range, text protobuf would re-encode. Such a request
 * goes in the JSON form, so that the one validator behind the gRPC door gives it the contract's error code and field.
 *
 * "Exactly" is checked the only sure way: the message is encoded and decoded with the method's own serializers and
 * must read back as the same REST input. A PATCH body's keys become the `update_mask`.
 */
export function typedRequestOf(route: RouteSpec, input: RestInput): Record<string, unknown> | undefined {
  const method = methodOf(route);
  if (!method || !route.response || route.stream) return undefined;
  const hasBody = requestGroups(route).some((g) => g.kind === 'body');
  // A route whose body may be left out reads a missing body as `{}` (route.ts), which is what the message carries.
  if (hasBody && route.bodyOptional && input.body === undefined) input = { ...input, body: {} };
  if (hasBody ? !isObject(input.body) : input.body !== undefined && input.body !== null) return undefined;
  try {
    const message = messageOfRestInput(route, input);
    if (route.method === 'PATCH')
      message.updateMask = Object.keys(input.body as Record<string, unknown>).map(protoFieldName);
    const decoded = method.requestDeserialize(method.requestSerialize(message)) as Record<string, unknown>;
    const back = restInputOfMessage(route, decoded);
    if (!isDeepStrictEqual(back.params, input.params) || !isDeepStrictEqual(back.query, input.query)) return undefined;
    if (hasBody && !isDeepStrictEqual(back.body, input.body)) return undefined;
    return message;
  } catch {
    return undefined;
  }
}
