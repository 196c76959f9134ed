import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ExportResultCode } from '@opentelemetry/core';
import { performance } from 'node:perf_hooks';
import { createTracing, type Tracing } from './create-tracing.js';
import type { SamplerName, TracingConfig } from './tracing-config.js';

/** The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name. */
function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** How often at most a failing export is reported: a collector that is down fails every batch. */
const REPORT_EVERY_MS = 60_000;

/**
 * Builds the production tracing of `config`: spans batched to the OTLP/HTTP endpoint. `onExportFailure` hears of a
 * failed export (collector down, refused, too slow) at most once a minute, with how many spans were lost since.
 */
export async function createOtlpTracing(
  config: TracingConfig,
  opts: { serviceVersion?: string; onExportFailure?: (message: string, lostSpans: number) => void } = {},
): Promise<Tracing> {
  // Loaded only when tracing is on: a service without an endpoint never loads the exporter.
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const otlp = new OTLPTraceExporter({ url: config.endpoint });
  let lost = 0;
  let reportedAt = -Infinity;
  const exporter: SpanExporter = {
    export(spans, done) {
      otlp.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          lost += spans.length;
          if (opts.onExportFailure && performance.now() - reportedAt >= REPORT_EVERY_MS) {
            reportedAt = performance.now();
            opts.onExportFailure(result.error?.message ?? 'export failed', lost);
            lost = 0;
          }
        }
        done(result);
      });
    },
    shutdown: () => otlp.shutdown(),
    forceFlush: () => otlp.forceFlush(),
  };
  const serviceVersion = opts.serviceVersion;
  return createTracing({
    exporter,
    serviceName: config.serviceName,
    ...(serviceVersion ? { serviceVersion } : {}),
    sampler: samplerOf(config.sampler, config.samplerRatio),
  });
}
