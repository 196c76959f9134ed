import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Whether `ref`'s target is collected after up to five full collections, each in a job of its own: one collection may
 * only finish a marking begun before the last reference went (other tests of the process allocating), and a deref
 * keeps its target to the end of the job it ran in.
 */
export async function collectedAfterGc(ref: WeakRef<object>): Promise<boolean> {
  setFlagsFromString('--expose_gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  return ref.deref() === undefined;
}
