import type { ServiceDefinition } from '@grpc/grpc-js';
import type { ServiceLogger } from '../observability/create-logger.js';

const UNDECODABLE = Symbol('undecodable request');

/** A request message grpc-js could not decode, kept so its handler can answer it. */
export interface UndecodableRequest {
  [UNDECODABLE]: true;
  reason: string;
}

/** Answers whether a request is one guardCodecs could not decode. */
export function isUndecodable(request: unknown): request is UndecodableRequest {
  return typeof request === 'object' && request !== null && UNDECODABLE in request;
}

/**
 * Wraps a service definition's codecs. A request that cannot be decoded reaches its handler as an
 * UndecodableRequest (so it is answered 400 VALIDATION_ERROR in the contract's envelope, logged and audited like
 * any bad input, instead of a bare INTERNAL status from grpc-js); an answer that cannot be encoded is logged before
 * grpc-js turns it into INTERNAL, since such failures happen after the handler and outside every interceptor.
 */
export function guardCodecs<D extends ServiceDefinition>(definition: D, logger: ServiceLogger): D {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(definition)) {
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return method.requestDeserialize(bytes);
        } catch (err) {
          return {
            [UNDECODABLE]: true,
            reason: err instanceof Error ? err.message : String(err),
          } satisfies UndecodableRequest;
        }
      },
      responseSerialize: (value: unknown) => {
        try {
          return method.responseSerialize(value);
        } catch (err) {
          logger.error({ rpc: method.path, err }, 'answer could not be encoded');
          throw err;
        }
      },
    };
  }
  return out as D;
}
