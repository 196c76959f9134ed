/** Answers counted by status over one phase of a run, with every server error's code. */
export interface StatusCounts {
  /** Responses by status: an HTTP status (`200`), a gRPC status (`grpc OK`) or a transport failure (`transport ECONNRESET`). */
  byStatus: Record<string, number>;
  /** Server errors (HTTP 5xx, gRPC INTERNAL/UNKNOWN/UNAVAILABLE/..., transport failures) by status and error code. */
  serverErrors: Record<string, number>;
  /** The first few server-error bodies, cut short, so a failure can be read without rerunning. */
  serverErrorSamples: string[];
  total: number;
}

/** Counts every answer the bench's clients receive; a phase takes its counts and starts the next from zero. */
export interface ResponseTally {
  /** Records one answer; `code` is the error code of its body, `body` is kept for server errors only. */
  record(status: string, serverError: boolean, code?: string, body?: unknown): void;
  /** The counts since the previous take (or the start), then starts over. */
  take(): StatusCounts;
}

const SAMPLES = 5;

/** Empty counts. */
export function emptyStatusCounts(): StatusCounts {
  return { byStatus: {}, serverErrors: {}, serverErrorSamples: [], total: 0 };
}

/** Creates a tally shared by the clients of one run. */
export function createResponseTally(): ResponseTally {
  let counts = emptyStatusCounts();
  return {
    record(status, serverError, code, body) {
      counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
      counts.total++;
      if (!serverError) return;
      const key = `${status} ${code ?? ''}`.trim();
      counts.serverErrors[key] = (counts.serverErrors[key] ?? 0) + 1;
      if (counts.serverErrorSamples.length < SAMPLES)
        counts.serverErrorSamples.push(`${key}: ${JSON.stringify(body ?? null).slice(0, 300)}`);
    },
    take() {
      const taken = counts;
      counts = emptyStatusCounts();
      return taken;
    },
  };
}

/** Adds `b` into `a` (both unchanged; answers a new object). */
export function mergeStatusCounts(a: StatusCounts, b: StatusCounts): StatusCounts {
  const out = emptyStatusCounts();
  for (const c of [a, b]) {
    for (const [k, v] of Object.entries(c.byStatus)) out.byStatus[k] = (out.byStatus[k] ?? 0) + v;
    for (const [k, v] of Object.entries(c.serverErrors)) out.serverErrors[k] = (out.serverErrors[k] ?? 0) + v;
    out.serverErrorSamples.push(...c.serverErrorSamples.slice(0, SAMPLES - out.serverErrorSamples.length));
    out.total += c.total;
  }
  return out;
}

/** How many server errors the counts hold. */
export function serverErrorCount(c: StatusCounts): number {
  return Object.values(c.serverErrors).reduce((s, n) => s + n, 0);
}

/** `200 x1234, 409 x3`; server errors named with their codes. */
export function formatStatusCounts(c: StatusCounts): string {
  const parts = Object.entries(c.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} x${v}`);
  const errors = Object.entries(c.serverErrors).map(([k, v]) => `${k} x${v}`);
  return parts.join(', ') + (errors.length ? ` [server errors: ${errors.join(', ')}]` : '');
}
