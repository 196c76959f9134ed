import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import type { Database } from '../persistence/database.js';
import type { OrganizationChanges } from '../persistence/organization-changes.js';
import { findOrganization, type OrganizationRecord } from '../persistence/organization-repository.js';

/** A cache of organization rows, dropped the moment any process commits a change to one. */
export interface OrganizationCache {
  /** The organization `id`, or undefined when there is none. */
  find(id: string): Promise<OrganizationRecord | undefined>;
  /** Stops listening for changes. */
  close(): Promise<void>;
}

/** Options of createOrganizationCache. */
export interface OrganizationCacheOptions {
  db: Pick<Database, 'query' | 'onCommit'>;
  changes: OrganizationChanges;
  /**
   * The longest a read is trusted, however quiet the change announcements are: a bound for an announcement lost while
   * Redis was unreachable. @default 5000
   */
  ttlMs?: number;
  /** @default 10000 */
  maxEntries?: number;
  /** Monotonic milliseconds; injected by tests. @default performance.now */
  now?: () => number;
}

/**
 * createOrganizationCache keeps organization rows in memory so a read (GetOrganization, an operation checking plan or
 * settings) costs no PostgreSQL round trip. Every write of an organization's row (its name and settings, its provider
 * graph version) tags its transaction (organization-repository.ts); once it commits, this process drops the entry and
 * announces the id on Redis, and every other process drops it when the announcement arrives. A read that raced a
 * change (sent before the commit, answered after) is not kept. Entries live at most `ttlMs` in any case.
 */
export function createOrganizationCache(opts: OrganizationCacheOptions): OrganizationCache {
  const ttl = opts.ttlMs ?? 5000;
  const now = opts.now ?? (() => performance.now());
  const entries = new LRUCache<string, { value: OrganizationRecord | undefined; until: number }>({
    max: opts.maxEntries ?? 10_000,
  });
  const loads = new Map<string, Promise<OrganizationRecord | undefined>>();
  // Bumped for an id on every change heard: a load started before the change must not store what it read.
  const generations = new Map<string, number>();
  let everything = 0;

  const forget = (id: string | undefined) => {
    if (id === undefined) {
      everything++;
      entries.clear();
      generations.clear();
      loads.clear();
      return;
    }
    entries.delete(id);
    // Readers from now on start a load of their own rather than join one that may have read the old row.
    loads.delete(id);
    generations.set(id, (generations.get(id) ?? 0) + 1);
  };
  const stopCommits = opts.db.onCommit((tags) => {
    const ids = tags.filter((t) => t.startsWith('organization:')).map((t) => t.slice('organization:'.length));
    for (const id of ids) forget(id);
    opts.changes.announce(ids);
  });
  void opts.changes.listen(forget);

  return {
    async find(id) {
      const hit = entries.get(id);
      if (hit && hit.until > now()) return hit.value;
      let pending = loads.get(id);
      if (!pending) {
        const generation = generations.get(id) ?? 0;
        const epoch = everything;
        const sentAt = now();
        pending = findOrganization(opts.db, id)
          .then((value) => {
            if ((generations.get(id) ?? 0) === generation && everything === epoch)
              entries.set(id, { value, until: sentAt + ttl });
            return value;
          })
          .finally(() => {
            if (loads.get(id) === pending) loads.delete(id);
          });
        loads.set(id, pending);
      }
      return pending;
    },
    async close() {
      stopCommits();
      await opts.changes.close();
    },
  };
}
