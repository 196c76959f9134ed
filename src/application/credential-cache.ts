import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import type { Database } from '../persistence/database.js';
import { findKeyByHash, type KeyRow } from '../persistence/api-key-repository.js';
import { findPlatformOfOrganization } from '../persistence/organization-repository.js';

export type { KeyRow };

/** Bounded, short-lived caches of key lookups and of the platform an organization belongs to. */
export interface CredentialCache {
  /** The key stored under `hash` (SHA-256 of the secret), or undefined when there is none. */
  keyByHash(hash: Buffer): Promise<KeyRow | undefined>;
  /** The platform of an organization, or undefined when it does not exist. */
  platformOfOrganization(organizationId: string): Promise<string | undefined>;
  /** Drops the cached lookups of a key at once (this process revoked it). */
  forgetKey(keyId: string): void;
}

/** Options of createCredentialCache. */
export interface CredentialCacheOptions {
  db: Pick<Database, 'query'>;
  /**
   * How long a key lookup (found or not) is trusted, counted from when its query was SENT, so an answer read
   * just before a revocation committed is never trusted longer than this after it. @default 500
   */
  keyTtlMs?: number;
  /** Keys and organizations held at most (each). @default 10000 */
  maxEntries?: number;
  /** Monotonic milliseconds; injected by tests. @default performance.now */
  now?: () => number;
}

const MISSING = Symbol('missing');
type Cached<T> = T | typeof MISSING;

/**
 * Creates the credential cache: authentication without a PostgreSQL round trip per request. A key lookup is reused
 * for at most `keyTtlMs` (so a key revoked anywhere stops working in every process within that time, and at once in
 * the process that revoked it); concurrent misses of one key share one query. An organization's platform never
 * changes, so it is kept until evicted (unknown organizations only for `keyTtlMs`).
 */
export function createCredentialCache(opts: CredentialCacheOptions): CredentialCache {
  const ttl = opts.keyTtlMs ?? 500;
  const max = opts.maxEntries ?? 10_000;
  const now = opts.now ?? (() => performance.now());
  const keys = new LRUCache<string, { value: Cached<KeyRow>; until: number }>({ max });
  const keyLoads = new Map<string, Promise<Cached<KeyRow>>>();
  const orgs = new LRUCache<string, { value: Cached<string>; until: number }>({ max });
  const orgLoads = new Map<string, Promise<Cached<string>>>();

  /** Reads through `cache`, sharing one load per key among concurrent callers. */
  async function readThrough<T>(
    cache: LRUCache<string, { value: Cached<T>; until: number }>,
    loads: Map<string, Promise<Cached<T>>>,
    key: string,
    ttlOf: (v: Cached<T>) => number,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.value === MISSING ? undefined : hit.value;
    let pending = loads.get(key);
    if (!pending) {
      const sentAt = now();
      pending = load()
        .then((v) => {
          const value: Cached<T> = v === undefined ? MISSING : v;
          cache.set(key, { value, until: sentAt + ttlOf(value) });
          return value;
        })
        .finally(() => loads.delete(key));
      loads.set(key, pending);
    }
    const value = await pending;
    return value === MISSING ? undefined : value;
  }

  return {
    keyByHash(hash) {
      return readThrough(
        keys,
        keyLoads,
        hash.toString('hex'),
        () => ttl,
        async () => {
          return findKeyByHash(opts.db, hash);
        },
      );
    },
    platformOfOrganization(organizationId) {
      return readThrough(
        orgs,
        orgLoads,
        organizationId,
        (v) => (v === MISSING ? ttl : Number.POSITIVE_INFINITY),
        async () => {
          return findPlatformOfOrganization(opts.db, organizationId);
        },
      );
    },
    forgetKey(keyId) {
      for (const [k, entry] of keys.entries()) if (entry.value !== MISSING && entry.value.id === keyId) keys.delete(k);
    },
  };
}
