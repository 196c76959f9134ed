import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Metadata } from '@grpc/grpc-js';
import { LRUCache } from 'lru-cache';
import { setHeaderMetadata } from '../grpc/header-metadata.js';
import { ADMITTED_TOKEN_KEY } from '../admission/admission-queue.js';
import type { RpcCaller } from './rpc-caller.js';

/** What the gateway knows of a request before it reads its body. */
export interface RequestCredentials {
  /** The Authorization header as sent, or undefined. */
  authorization: string | undefined;
  clientAddress: string | undefined;
  requestId: string;
}

/** Options of createCredentialsCheck. */
export interface CredentialsCheckOptions {
  /** How the gateway calls the API (rpc-caller.ts). */
  call: RpcCaller;
  deadlineMs: number;
  /** The admitted token of the gateway's own process (see GatewayDeps): the request was admitted already. */
  admittedToken?: string;
  /**
   * How long a key the API accepted is taken as valid without asking again. The request's own call authenticates it
   * anyway, so this only bounds how long a key revoked meanwhile may still have its bodies read. @default 5000
   */
  ttlMs?: number;
  /** Keys remembered at most. @default 10000 */
  maxEntries?: number;
  /** Monotonic milliseconds; injected by tests. @default performance.now */
  now?: () => number;
}

/**
 * Creates the check the gateway makes before it reads a request body: GatewayService/CheckCredentials authenticates the
 * key, so a request with a missing, malformed, unknown or revoked key is refused (401, or 429 once its address has
 * failed too often) without its body ever being read or parsed. A key the API accepted is remembered for `ttlMs`
 * under the SHA-256 of the header (never the key itself), so a client's requests cost one extra call per key and
 * period, not one per request. Throws the API's refusal as an RpcFailure.
 */
export function createCredentialsCheck(opts: CredentialsCheckOptions) {
  const ttl = opts.ttlMs ?? 5000;
  const now = opts.now ?? (() => performance.now());
  const accepted = new LRUCache<string, number>({ max: opts.maxEntries ?? 10_000 });
  return async function checkCredentials(creds: RequestCredentials): Promise<void> {
    const id =
      creds.authorization === undefined ? undefined : createHash('sha256').update(creds.authorization).digest('hex');
    if (id !== undefined && (accepted.get(id) ?? 0) > now()) return;
    const md = new Metadata();
    md.set('x-service-request-id', creds.requestId);
    md.set('x-service-door', 'rest');
    if (opts.admittedToken !== undefined) md.set(ADMITTED_TOKEN_KEY, opts.admittedToken);
    if (creds.clientAddress !== undefined) md.set('x-service-client-address', creds.clientAddress);
    if (creds.authorization !== undefined) setHeaderMetadata(md, 'authorization', creds.authorization);
    const sentAt = now();
    await opts.call('GatewayService', 'CheckCredentials', {}, md, { deadlineMs: opts.deadlineMs });
    if (id !== undefined) accepted.set(id, sentAt + ttl);
  };
}
