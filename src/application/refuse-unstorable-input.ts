import { findUnstorableValue } from '../contract/find-unstorable-input.js';
import { validationError } from '../errors/service-error.js';
import {
  isStreaming,
  type AnyOperationSpec,
  type OperationTable,
  type TypedStreamingOperationSpec,
} from './operation.js';

/** Throws 400 VALIDATION_ERROR (with `field`) when a request message holds what no operation may store. */
function refuse(request: object): void {
  // A typed request names its fields by their message (JSON) names: `settings.timezone`.
  const problem = findUnstorableValue(request);
  if (problem) throw validationError([problem]);
}

/**
 * Wraps every RPC of a table so that, once the caller is authenticated and before the RPC reads anything, a request
 * message with U+0000 or an unpaired surrogate in any string, or a value nested deeper than MAX_INPUT_DEPTH, is refused
 * the same way through both doors: PostgreSQL can store neither, and recursive code (canonical JSON, serialization)
 * must never meet unbounded nesting. Its strings are named by their fields.
 */
export function refuseUnstorableInput(table: OperationTable): OperationTable {
  const out: OperationTable = {};
  for (const [rpc, spec] of Object.entries(table)) {
    out[rpc] = refusing(spec);
  }
  return out;
}

/** One RPC wrapped as refuseUnstorableInput says. */
function refusing(spec: AnyOperationSpec): AnyOperationSpec {
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
