/**
 * A read-only map whose entries are found on demand: `lookup` answers one key, `keys` lists them in the map's order.
 * A graph read from columns answers a resolution's few lookups without a map entry (or an object) per record.
 */
export class LazyMap<K, V> implements ReadonlyMap<K, V> {
  constructor(
    private readonly lookup: (key: K) => V | undefined,
    private readonly keyList: () => Iterable<K>,
    readonly size: number,
  ) {}

  get(key: K): V | undefined {
    return this.lookup(key);
  }

  has(key: K): boolean {
    return this.lookup(key) !== undefined;
  }

  *keys(): MapIterator<K> {
    yield* this.keyList();
  }

  *values(): MapIterator<V> {
    for (const k of this.keyList()) yield this.lookup(k)!;
  }

  *entries(): MapIterator<[K, V]> {
    for (const k of this.keyList()) yield [k, this.lookup(k)!];
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(f: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) f.call(thisArg, v, k, this);
  }
}
