import type { BenchResponse } from './bench-client.js';

/** A call made by a client that obeys Retry-After: its last answer and how many 503s it waited out before it. */
export interface ObeyedResponse {
  response: BenchResponse;
  /** 503 answers received (each followed by a wait and a retry while retries were left). */
  refusals: number;
}

/** What a client waits when a 503 names no Retry-After (the service always sends 1 s). */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Sends `send` as a client following the contract does: a 503 is waited out for its Retry-After seconds and sent
 * again, at most `retries` times (the clients: 6); any other answer, or the last 503, is the outcome.
 */
export async function obeyRetryAfter(send: () => Promise<BenchResponse>, retries: number): Promise<ObeyedResponse> {
  let refusals = 0;
  for (let attempt = 0; ; attempt++) {
    const response = await send();
    if (response.status !== 503) return { response, refusals };
    refusals++;
    if (attempt >= retries) return { response, refusals };
    const wait = (response.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000;
    await new Promise((r) => setTimeout(r, wait));
  }
}
