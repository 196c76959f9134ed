import { randomBytes } from 'node:crypto';

/**
 * A METRICS_TOKEN for test services whose tests read the full /metrics, as a Prometheus deployment does: start the
 * service with `env: { METRICS_TOKEN: TEST_METRICS_TOKEN }` and pass the token to the readers below.
 */
export const TEST_METRICS_TOKEN = randomBytes(24).toString('hex');

/** A service's GET /metrics text: the full exposition with `token`, the anonymous one without. */
export async function scrapeMetrics(baseUrl: string, token?: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text}`);
  return text;
}

/** The value of one sample of a service's GET /metrics, e.g. `scheduling_admission_in_flight{gate="rest"}`. */
export async function metricSample(baseUrl: string, sample: string, token?: string): Promise<number | undefined> {
  const text = await scrapeMetrics(baseUrl, token);
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

/** Waits (bounded, 10 s) until a metric sample reads `value`. */
export async function untilMetricSample(baseUrl: string, sample: string, value: number, token?: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await metricSample(baseUrl, sample, token)) !== value) {
    if (Date.now() > deadline)
      throw new Error(`${sample} never read ${value} (last ${await metricSample(baseUrl, sample, token)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
