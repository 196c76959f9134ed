import {
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type SpanOptions,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { markSpanFailed } from './mark-span-failed.js';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

/**
 * The service's tracing when it is on (docs/tracing.md): a tracer of its own provider, the context of the code running
 * now (its own AsyncLocalStorage: nothing is registered globally, so two services in one process keep their traces
 * apart) and W3C Trace Context in and out. Off (no OTEL_EXPORTER_OTLP_ENDPOINT), the service holds none: every call
 * site tests `tracing === undefined` and creates, wraps and propagates nothing.
 */
export interface Tracing {
  readonly tracer: Tracer;
  /** The context active here (ROOT_CONTEXT outside any span). */
  active(): Context;
  /** Runs `fn` with `ctx` active: spans started in it and in everything it awaits are its children. */
  with<T>(ctx: Context, fn: () => T): T;
  /**
   * A span under the active one, only while that one records: a store command of a traced request or job gets one, a
   * background loop's poll (no span active, or its job's span already ended) gets none and costs nothing.
   */
  childSpan(name: string, options: SpanOptions): Span | undefined;
  /**
   * Runs `fn` in a new span, active for everything `fn` awaits, and ends it when `fn` settles; a throw marks it failed
   * and is rethrown. The span is a child of the active one, but the root of a trace of its own when `options.root` is
   * set, when no span is active, or when the active one has ended (a worker's next job, started from the end of its
   * last one, is not that job's child).
   */
  inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T>;
  /** The remote parent `traceparent` and `tracestate` name (read through `get`), or ROOT_CONTEXT. */
  extract(get: (header: string) => string | undefined): Context;
  /** Writes `traceparent` (and `tracestate`) of `ctx`'s span through `set`; nothing when it has none. */
  inject(ctx: Context, set: (header: string, value: string) => void): void;
  /** Exports what is buffered now. */
  forceFlush(): Promise<void>;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

const getter: TextMapGetter<(header: string) => string | undefined> = {
  get: (read, key) => read(key),
  keys: () => ['traceparent', 'tracestate'],
};
const setter: TextMapSetter<(header: string, value: string) => void> = {
  set: (write, key, value) => write(key, value),
};

/** Options of createTracing. */
export interface CreateTracingOptions {
  /** Where spans go: the OTLP exporter in production, an InMemorySpanExporter in tests. */
  exporter: SpanExporter;
  serviceName: string;
  serviceVersion?: string;
  /** @default parentbased_always_on */
  sampler?: Sampler;
  /**
   * `batch` (production: spans are exported in the background, at most 2,048 queued; beyond, new ones are dropped) or
   * `simple` (each span exported as it ends: tests read them at once). @default batch
   */
  export?: 'batch' | 'simple';
}

/** Builds the service's tracing on `exporter` (see Tracing). */
export function createTracing(opts: CreateTracingOptions): Tracing {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': opts.serviceName,
      ...(opts.serviceVersion ? { 'service.version': opts.serviceVersion } : {}),
    }),
    sampler: opts.sampler ?? new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [
      opts.export === 'simple' ? new SimpleSpanProcessor(opts.exporter) : new BatchSpanProcessor(opts.exporter),
    ],
  });
  const tracer = provider.getTracer('scheduling-service', opts.serviceVersion);
  const contexts = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();
  return {
    tracer,
    active: () => contexts.active(),
    with: (ctx, fn) => contexts.with(ctx, fn),
    childSpan(name, options) {
      const ctx = contexts.active();
      if (trace.getSpan(ctx)?.isRecording() !== true) return undefined;
      return tracer.startSpan(name, options, ctx);
    },
    inSpan(name, options, fn) {
      const active = contexts.active();
      const parent = endedSpanIn(active) ? ROOT_CONTEXT : active;
      const span = tracer.startSpan(name, options, parent);
      return contexts.with(trace.setSpan(parent, span), async () => {
        try {
          return await fn(span);
        } catch (err) {
          markSpanFailed(span, err);
          throw err;
        } finally {
          span.end();
        }
      });
    },
    extract: (get) => propagator.extract(ROOT_CONTEXT, get, getter),
    inject: (ctx, set) => propagator.inject(ctx, set, setter),
    forceFlush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      contexts.disable();
    },
  };
}

/** Whether `ctx` holds a local span that was sampled and no longer records: it has ended. */
function endedSpanIn(ctx: Context): boolean {
  const span = trace.getSpan(ctx);
  if (span === undefined || span.isRecording()) return false;
  const sc = span.spanContext();
  return !sc.isRemote && (sc.traceFlags & TraceFlags.SAMPLED) !== 0;
}
