/** A binary min-heap kept in a plain array, for taking the best few of many items without sorting them all. */

/** heapify orders `items` in place as a min-heap under `compare` (smallest first), in O(n). */
export function heapify<T>(items: T[], compare: (a: T, b: T) => number): void {
  for (let i = (items.length >>> 1) - 1; i >= 0; i--) siftDown(items, i, compare);
}

/** popMin removes and returns the smallest item of a heap made by heapify, or undefined when it is empty. */
export function popMin<T>(items: T[], compare: (a: T, b: T) => number): T | undefined {
  const top = items[0];
  const last = items.pop();
  if (items.length > 0 && last !== undefined) {
    items[0] = last;
    siftDown(items, 0, compare);
  }
  return top;
}

/** pushHeap adds an item to a heap made by heapify. */
export function pushHeap<T>(items: T[], item: T, compare: (a: T, b: T) => number): void {
  let i = items.length;
  items.push(item);
  while (i > 0) {
    const parent = (i - 1) >>> 1;
    if (compare(item, items[parent] as T) >= 0) break;
    items[i] = items[parent] as T;
    i = parent;
  }
  items[i] = item;
}

function siftDown<T>(items: T[], index: number, compare: (a: T, b: T) => number): void {
  const n = items.length;
  const item = items[index] as T;
  let i = index;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) break;
    const right = left + 1;
    const child = right < n && compare(items[right] as T, items[left] as T) < 0 ? right : left;
    if (compare(items[child] as T, item) >= 0) break;
    items[i] = items[child] as T;
    i = child;
  }
  items[i] = item;
}
