import { findUnstorableInput, findUnstorableValue } from '../contract/find-unstorable-input.js';
import { validationError } from '../errors/service-error.js';
import {
  isStreaming,
  isTyped,
  type AnyOperationSpec,
  type OperationInput,
  type OperationTable,
  type StreamingOperationSpec,
  type TypedStreamingOperationSpec,
} from './operation.js';

/** Throws 400 VALIDATION_ERROR (with `field`) when a request holds what no operation may store. */
function check(input: OperationInput): void {
  const problem = findUnstorableInput(input);
  if (problem) throw validationError([problem]);
}

/**
 * Wraps every operation of a table so that, once the caller is authenticated and before the operation reads anything,
 * a request with U+0000 or an unpaired surrogate in any path parameter, query value, body string or key, or a body
 * nested deeper than MAX_INPUT_DEPTH, is refused the same way through both doors: PostgreSQL can store neither, and
 * recursive code (canonical JSON, serialization) must never meet unbounded nesting. A typed RPC's request message is
 * checked the same way, its strings named by their fields.
 */
export function refuseUnstorableInput(table: OperationTable): OperationTable {
  const out: OperationTable = {};
  for (const [rpc, spec] of Object.entries(table)) {
    out[rpc] = refusing(spec);
  }
  return out;
}

/** One operation wrapped as refuseUnstorableInput says. */
function refusing(spec: AnyOperationSpec): AnyOperationSpec {
  if (isTyped(spec)) {
    // A typed request names its fields by their message (JSON) names: `settings.timezone`.
    const refuse = (request: object) => {
      const problem = findUnstorableValue(request);
      if (problem) throw validationError([problem]);
    };
    if (isStreaming(spec)) {
      const typedStream: TypedStreamingOperationSpec = {
        ...spec,
        stream: async (caller, request, send, signal) => {
          refuse(request);
          return spec.stream(caller, request, send, signal);
        },
      };
      return typedStream;
    }
    return {
      ...spec,
      handle: async (caller, request, call) => {
        refuse(request);
        return spec.handle(caller, request, call);
      },
    };
  }
  if (isStreaming(spec)) {
    const stream: StreamingOperationSpec = {
      ...spec,
      stream: async (caller, input, send, signal) => {
        check(input);
        return spec.stream(caller, input, send, signal);
      },
    };
    return stream;
  }
  return {
    ...spec,
    handler: async (caller, input) => {
      check(input);
      return spec.handler(caller, input);
    },
  };
}
