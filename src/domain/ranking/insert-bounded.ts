/**
 * insertBounded inserts an item into a list kept sorted by `compare` (best first) and trims it to `capacity`,
 * so a top-k selection over n items costs O(n·k) with k small instead of sorting all n.
 */
export function insertBounded<T>(list: T[], item: T, capacity: number, compare: (a: T, b: T) => number): void {
  if (capacity <= 0) return;
  const last = list[list.length - 1];
  if (list.length >= capacity && last !== undefined && compare(item, last) >= 0) return;
  let i = list.length;
  while (i > 0 && compare(item, list[i - 1] as T) < 0) i--;
  list.splice(i, 0, item);
  if (list.length > capacity) list.length = capacity;
}
