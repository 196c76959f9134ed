import type { Tracing } from '../observability/create-tracing.js';
import type { RpcCaller } from './rpc-caller.js';

/**
 * The caller `call` sending, with every call, the trace context active at the call (the REST request's span) as
 * `traceparent` and `tracestate` metadata: the RPC's server span, in-process or over the network, is its child.
 */
export function tracedCaller(call: RpcCaller, tracing: Tracing): RpcCaller {
  return (service, rpc, request, metadata, opts) => {
    tracing.inject(tracing.active(), (key, value) => metadata.set(key, value));
    return call(service, rpc, request, metadata, opts);
  };
}
