import { isDeepStrictEqual } from 'node:util';
import type { RouteSpec } from '../contract/route.js';
import { answersInShape, restOfResponseMessage } from '../contract/typed-message.js';
import { ServiceError } from '../errors/service-error.js';
import type { RpcOutcome } from './call-rpc.js';

/**
 * The REST JSON text of an RPC's answer: the JSON form's text as it came, or the typed response message turned into
 * the contract's JSON by the route's shapes (typed-message.ts). With `check`, an answer carrying both forms is rendered
 * from its typed form, which must read the same as the JSON form, else the call fails with INTERNAL_ERROR naming the
 * first difference (tests run this way, so their REST bodies are the typed rendering).
 */
export function restJsonOf(route: RouteSpec, response: RpcOutcome['response'], check: boolean): string {
  if (response.resultJson && !check) return response.resultJson;
  if (!response.resultJson && !route.response) return 'null';
  const json = JSON.stringify(restOfResponseMessage(route, response) ?? null);
  if (response.resultJson && check) {
    const expected: unknown = JSON.parse(response.resultJson);
    if (!answersInShape(route, expected)) return response.resultJson;
    const actual: unknown = JSON.parse(json);
    if (!isDeepStrictEqual(actual, expected)) {
      const where = firstDifference(actual, expected, '$');
      throw new ServiceError('INTERNAL_ERROR', undefined, {
        cause: new Error(`${route.rpc}: the typed answer differs from its JSON form at ${where}`),
      });
    }
  }
  return json;
}

/** The path of the first place two JSON values differ, with both values there (for the check's message). */
function firstDifference(a: unknown, b: unknown, path: string): string {
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const x = (a as Record<string, unknown>)[k];
      const y = (b as Record<string, unknown>)[k];
      if (!isDeepStrictEqual(x, y)) return firstDifference(x, y, `${path}.${k}`);
    }
  }
  return `${path} (typed ${JSON.stringify(a)?.slice(0, 120)}, JSON ${JSON.stringify(b)?.slice(0, 120)})`;
}
