import type { Config } from '../config/load-config.js';
import type { ServiceLogger } from '../observability/create-logger.js';
import type { Tracing } from '../observability/create-tracing.js';
import type { Lifetime } from './lifetime.js';

/** The longest a stop waits for the last spans to be exported. */
const SHUTDOWN_EXPORT_MS = 3000;

/**
 * The tracing the configuration asks for (docs/tracing.md): with an OTLP endpoint, spans exported there in batches,
 * shut down (what is queued exported, for at most 3 s) late in the lifetime's stop, and failed exports logged at warn at most once a
 * minute; without one, undefined, and nothing of the SDK is even loaded.
 */
export async function openTracing(
  config: Config,
  deps: { lifetime: Lifetime; logger: ServiceLogger; serviceVersion: string },
): Promise<Tracing | undefined> {
  const settings = config.tracing;
  if (!settings) return undefined;
  const { createOtlpTracing } = await import('../observability/create-otlp-tracing.js');
  // The origin only in the log: an endpoint URL may carry credentials.
  const collector = new URL(settings.endpoint).origin;
  const tracing = await createOtlpTracing(settings, {
    serviceVersion: deps.serviceVersion,
    onExportFailure: (error, lostSpans) => deps.logger.warn({ collector, lostSpans, error }, 'trace export failed'),
  });
  // A collector that is down or hangs must not hold the stop: what it has not taken in time is lost.
  deps.lifetime.defer(async () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SHUTDOWN_EXPORT_MS);
    });
    await Promise.race([tracing.shutdown().catch(() => undefined), late]);
    clearTimeout(timer);
  });
  return tracing;
}
