import { EventEmitter } from 'node:events';
import {
  Metadata,
  status as GrpcStatus,
  type MethodDefinition,
  type sendUnaryData,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
  type ServerUnaryCall,
  type StatusObject,
} from '@grpc/grpc-js';
import type { ServiceError } from '../errors/service-error.js';
import { carriedServiceError } from './carried-service-error.js';

/** A unary method a server serves: its definition (path, codecs) and the handler grpc-js would run for it. */
export interface UnaryMethod {
  definition: MethodDefinition<unknown, unknown>;
  handler: (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;
}

/**
 * How an in-process call ended: its status (the trailers in `metadata`), the response message when OK, and, when the
 * server encoded the status from a ServiceError, that error as it was.
 */
export interface InProcessOutcome {
  status: StatusObject;
  response?: unknown;
  error?: ServiceError;
}

/** What a call in flight needs of its caller: its deadline (ms since the epoch) and a signal that cancels it. */
export interface InProcessCallOptions {
  deadline: number;
  signal?: AbortSignal;
}

type ServerListener = Parameters<ServerInterceptingCallInterface['start']>[0];
type PartialStatus = Parameters<ServerInterceptingCallInterface['sendStatus']>[0];

/**
 * Serves unary calls of this process's own callers (the REST gateway) without the network, as grpc-gateway's
 * `RegisterXxxHandlerServer` does, but through the very interceptors the server runs (`interceptors`, in the server's
 * order: observer, admission) and the very handlers (`methods` by path: authentication, rate limit, deadline and
 * cancellation, audit, error mapping). Only the transport is left out: the request and response messages are the
 * objects given, never encoded; metadata is passed as it is. The call behaves as grpc-js's does: its deadline ends it
 * with DEADLINE_EXCEEDED and cancels the handler, `signal` cancels it (CANCELLED), and a status ends it once.
 */
export function createInProcessCalls(interceptors: ServerInterceptor[], methods: Map<string, UnaryMethod>) {
  const definitions = new Map(
    [...methods].map(([path, m]) => [
      path,
      {
        path,
        requestStream: false,
        responseStream: false,
        requestDeserialize: m.definition.requestDeserialize,
        responseSerialize: m.definition.responseSerialize,
      },
    ]),
  );
  return {
    /** Calls the unary method at `path` (`/scheduling.v1.OrganizationService/GetOrganization`); never rejects. */
    unary(path: string, request: unknown, metadata: Metadata, opts: InProcessCallOptions): Promise<InProcessOutcome> {
      const method = methods.get(path);
      const definition = definitions.get(path);
      if (!method || !definition)
        return Promise.resolve({
          status: {
            code: GrpcStatus.UNIMPLEMENTED,
            details: `The server does not implement the method ${path}`,
            metadata: new Metadata(),
          },
        });
      return new Promise((resolve) => {
        const onAbort = () => base.cancel();
        const base = new InProcessCall(metadata, request, opts.deadline, (outcome) => {
          opts.signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        });
        if (opts.signal?.aborted) return base.cancel();
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        // As grpc-js stacks them: the last interceptor is the outermost, the one the handler answers through first.
        const call = interceptors.reduce<ServerInterceptingCallInterface>((c, i) => i(definition, c), base);
        runUnary(call, path, method.handler);
      });
    },
  };
}

/** The calls served in-process by a server (createGrpcServer's `inProcess`). */
export type InProcessCalls = ReturnType<typeof createInProcessCalls>;

/**
 * The innermost call of an in-process call, where grpc-js has its HTTP/2 stream: it delivers the one request message,
 * keeps the response, and settles once, on the first status, its deadline or its cancellation; then, as grpc-js does,
 * it tells the listeners the call is over (onCancel), which releases what interceptors and the handler hold.
 */
class InProcessCall implements ServerInterceptingCallInterface {
  private listener: ServerListener | undefined;
  private reads = 0;
  private ended = false;
  private response: unknown;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly metadata: Metadata,
    private readonly request: unknown,
    private readonly deadline: number,
    private readonly settle: (outcome: InProcessOutcome) => void,
  ) {
    if (Number.isFinite(deadline)) {
      const timer = setTimeout(
        () => this.end({ code: GrpcStatus.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: null }),
        Math.max(0, deadline - Date.now()),
      );
      this.timer = timer;
    }
  }

  /** The caller went away: the call ends CANCELLED, as a grpc-js client's cancel() ends it. */
  cancel(): void {
    this.end({ code: GrpcStatus.CANCELLED, details: 'Cancelled on client', metadata: null });
  }

  start(listener: ServerListener): void {
    if (this.ended) return;
    this.listener = listener;
    // A deadline already past ends the call before its handler starts, as a grpc-js client does not even send it.
    if (this.deadline <= Date.now())
      return this.end({ code: GrpcStatus.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: null });
    listener.onReceiveMetadata(this.metadata);
  }
  startRead(): void {
    if (this.ended || !this.listener) return;
    if (this.reads++ === 0) this.listener.onReceiveMessage(this.request);
    else this.listener.onReceiveHalfClose();
  }
  sendMetadata(): void {
    // A unary answer's headers carry nothing the caller reads: its REST headers travel in the trailers.
  }
  sendMessage(message: unknown, callback: () => void): void {
    if (this.ended) return;
    this.response = message;
    callback();
  }
  sendStatus(status: PartialStatus): void {
    this.end(status);
  }
  getPeer(): string {
    return 'in-process';
  }
  getDeadline(): number {
    return this.deadline;
  }
  getHost(): string {
    return 'in-process';
  }
  getAuthContext(): ReturnType<ServerInterceptingCallInterface['getAuthContext']> {
    return {};
  }
  getConnectionInfo(): ReturnType<ServerInterceptingCallInterface['getConnectionInfo']> {
    return {};
  }
  getMetricsRecorder(): ReturnType<ServerInterceptingCallInterface['getMetricsRecorder']> {
    throw new Error('per-call metric recording (ORCA) is not served in-process');
  }

  private end(status: PartialStatus): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    const metadata = status.metadata ?? new Metadata();
    const full: StatusObject = { code: status.code, details: status.details, metadata };
    if (status.code === GrpcStatus.OK) this.settle({ status: full, response: this.response });
    else {
      const error = carriedServiceError(metadata);
      this.settle(error ? { status: full, error } : { status: full });
    }
    process.nextTick(() => this.listener?.onCancel());
  }
}

/** The unary call object a handler gets (what grpc-js's ServerUnaryCall offers that handlers read). */
class UnaryCall extends EventEmitter {
  cancelled = false;
  constructor(
    private readonly call: ServerInterceptingCallInterface,
    private readonly path: string,
    readonly metadata: Metadata,
    readonly request: unknown,
  ) {
    super();
  }
  getPeer(): string {
    return this.call.getPeer();
  }
  getDeadline() {
    return this.call.getDeadline();
  }
  getPath(): string {
    return this.path;
  }
  getHost(): string {
    return this.call.getHost();
  }
  sendMetadata(md: Metadata): void {
    this.call.sendMetadata(md);
  }
}

/** The status of a handler's error answer, as grpc-js makes it (serverErrorToStatus). */
function statusOfError(err: Parameters<sendUnaryData<unknown>>[0], trailer: Metadata | undefined): PartialStatus {
  const e = (err ?? {}) as { code?: unknown; details?: unknown; message?: unknown; metadata?: Metadata | null };
  const coded = typeof e.code === 'number' && Number.isInteger(e.code);
  return {
    code: coded ? (e.code as number) : GrpcStatus.UNKNOWN,
    details:
      coded && typeof e.details === 'string' ? e.details : typeof e.message === 'string' ? e.message : 'Unknown Error',
    metadata: trailer ?? e.metadata ?? null,
  };
}

/** Drives a unary handler on `call` as grpc-js's server does (handleUnary): metadata, one message, half close, answer. */
function runUnary(call: ServerInterceptingCallInterface, path: string, handler: UnaryMethod['handler']): void {
  let requestMetadata = new Metadata();
  let request: unknown;
  let unary: UnaryCall | undefined;
  const respond: sendUnaryData<unknown> = (err, value, trailer) => {
    if (err) return call.sendStatus(statusOfError(err, trailer));
    call.sendMessage(value, () => call.sendStatus({ code: GrpcStatus.OK, details: 'OK', metadata: trailer ?? null }));
  };
  call.start({
    onReceiveMetadata(md) {
      requestMetadata = md;
      call.startRead();
    },
    onReceiveMessage(message) {
      request = message;
      call.startRead();
    },
    onReceiveHalfClose() {
      unary = new UnaryCall(call, path, requestMetadata, request);
      try {
        handler(unary as unknown as ServerUnaryCall<unknown, unknown>, respond);
      } catch {
        call.sendStatus({ code: GrpcStatus.UNKNOWN, details: 'Unknown error', metadata: null });
      }
    },
    onCancel() {
      if (!unary) return;
      unary.cancelled = true;
      unary.emit('cancelled', 'cancelled');
    },
  });
}
