import { isDeepStrictEqual } from 'node:util';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import type { RouteSpec } from '../contract/route.js';
import {
  knownPartOf,
  messageOfRestInput,
  requestGroups,
  restInputOfMessage,
  type RestInput,
} from '../contract/typed-message.js';
import { protoFieldName } from '../contract/proto-shape.js';
import { parseInput } from '../contract/parse-input.js';
import { ServiceError, validationError } from '../errors/service-error.js';
import { findUnstorableInput } from '../contract/find-unstorable-input.js';
import { GRPC_SERVICES } from '../grpc/service-registry.js';

const methods = new Map<RouteSpec, MethodDefinition<unknown, unknown>>();

/** The generated method of a route's RPC (its serializers). */
function methodOf(route: RouteSpec): MethodDefinition<unknown, unknown> {
  let m = methods.get(route);
  if (m === undefined) {
    const def = GRPC_SERVICES[route.service].definition as ServiceDefinition;
    m = Object.values(def).find((d) => d.path.endsWith(`/${route.rpc}`)) as MethodDefinition<unknown, unknown>;
    if (!m) throw new Error(`${route.service}/${route.rpc} has no generated method`);
    methods.set(route, m);
  }
  return m;
}

/** True when a value is a JSON object (not null, not an array). */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The typed request message of a REST request: path, query and JSON body mapped onto the route's RPC request. Members
 * the route's schemas do not name are left out (the validator ignores them too). A request the message cannot carry
 * exactly (a string where a number goes, a null, an enum value out of range, text protobuf would re-encode) is refused
 * here, at the edge, with the contract's error: the one the route's schemas give it, so that it reads as the validator
 * behind the door would have answered; 400 VALIDATION_ERROR on the field otherwise.
 *
 * "Exactly" is checked the only sure way: the message is encoded and decoded with the method's own serializers and
 * must read back as the same REST input. A PATCH body's keys become the `update_mask`.
 */
export function typedRequestOf(route: RouteSpec, rawInput: RestInput): Record<string, unknown> {
  const hasBody = requestGroups(route).some((g) => g.kind === 'body');
  // A route whose body may be left out reads a missing body as `{}` (route.ts), which is what the message carries; a
  // route without a body ignores one.
  const raw = !hasBody
    ? { ...rawInput, body: undefined }
    : route.bodyOptional && rawInput.body === undefined
      ? { ...rawInput, body: {} }
      : rawInput;
  const typed = carriedExactly(route, raw, hasBody);
  if (typed) return typed;
  const parsed = judgedBySchemas(route, raw);
  // Text the schemas read as a number or a boolean (`limit=02`) is carried as the value they read.
  const canonical = carriedExactly(route, { ...raw, query: canonicalText(raw.query, parsed.query) }, hasBody);
  if (canonical) return canonical;
  const field = route.body ? 'body' : 'query';
  throw new ServiceError('VALIDATION_ERROR', `The ${field} holds a value the request message cannot carry.`, {
    field,
    details: [{ field, code: 'INVALID', message: 'cannot be carried by the request message' }],
  });
}

/** Query text with each value the schema read as a number or a boolean spelled as that value. */
function canonicalText(query: Record<string, string>, parsed: unknown): Record<string, string> {
  if (!isObject(parsed)) return query;
  const out = { ...query };
  for (const [k, v] of Object.entries(parsed))
    if (Object.hasOwn(out, k) && (typeof v === 'number' || typeof v === 'boolean')) out[k] = String(v);
  return out;
}

/** The message of a REST input when it carries the input exactly, else undefined. */
function carriedExactly(route: RouteSpec, raw: RestInput, hasBody: boolean): Record<string, unknown> | undefined {
  if (hasBody && !isObject(raw.body)) return undefined;
  const input = knownPartOf(route, raw);
  try {
    const message = messageOfRestInput(route, input);
    if (route.method === 'PATCH')
      message.updateMask = Object.keys(input.body as Record<string, unknown>).map(protoFieldName);
    const method = methodOf(route);
    const decoded = method.requestDeserialize(method.requestSerialize(message)) as Record<string, unknown>;
    const back = restInputOfMessage(route, decoded);
    if (!isDeepStrictEqual(back.params, input.params) || !isDeepStrictEqual(back.query, input.query)) return undefined;
    if (hasBody && !isDeepStrictEqual(back.body, input.body)) return undefined;
    return message;
  } catch {
    return undefined;
  }
}

/**
 * The route's schemas' reading of an input the message cannot carry as it is, judged as behind the door: first what
 * no operation may store (U+0000, unpaired surrogates, nesting past 32 levels), then the schemas in the order path,
 * query, body. The first refusal is thrown (the contract's code, field and details, worded as the validator words them).
 */
function judgedBySchemas(route: RouteSpec, input: RestInput): { query: unknown } {
  const unstorable = findUnstorableInput(input);
  if (unstorable) throw validationError([unstorable]);
  if (route.params) parseInput(route.params, input.params);
  const query: unknown = route.query ? parseInput(route.query, input.query) : undefined;
  if (route.body) parseInput(route.body, input.body);
  return { query };
}
