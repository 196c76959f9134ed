/** The value of one sample of a service's GET /metrics, e.g. `admission_in_flight{gate="rest"}`. */
export async function metricSample(baseUrl: string, sample: string): Promise<number | undefined> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

/** Waits (bounded, 10 s) until a metric sample reads `value`. */
export async function untilMetricSample(baseUrl: string, sample: string, value: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await metricSample(baseUrl, sample)) !== value) {
    if (Date.now() > deadline)
      throw new Error(`${sample} never read ${value} (last ${await metricSample(baseUrl, sample)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
