/** Settings of the OTLP exporter and the sampler (docs/configuration.md, the `OTEL_*` rows). */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL (`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). */
  endpoint: string;
  /** `service.name` of every span (OTEL_SERVICE_NAME, default `scheduling`). */
  serviceName: string;
  /** OTEL_TRACES_SAMPLER: `parentbased_always_on` (default), `parentbased_traceidratio`, `traceidratio`, ... */
  sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the `*traceidratio` samplers (default 1). */
  samplerRatio: number;
}

/** The samplers OTEL_TRACES_SAMPLER names, as the OpenTelemetry specification lists them. */
export const SAMPLER_NAMES = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** One of SAMPLER_NAMES. */
export type SamplerName = (typeof SAMPLER_NAMES)[number];
