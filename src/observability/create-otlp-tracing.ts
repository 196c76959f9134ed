import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
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

/** Builds the production tracing of `config`: spans batched to the OTLP/HTTP endpoint. */
export async function createOtlpTracing(config: TracingConfig, serviceVersion?: string): Promise<Tracing> {
  // Loaded only when tracing is on: a service without an endpoint never loads the exporter.
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return createTracing({
    exporter: new OTLPTraceExporter({ url: config.endpoint }),
    serviceName: config.serviceName,
    ...(serviceVersion ? { serviceVersion } : {}),
    sampler: samplerOf(config.sampler, config.samplerRatio),
  });
}
