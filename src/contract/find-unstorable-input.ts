import type { ErrorDetail } from '../errors/service-error.js';

/** Deepest nesting of arrays and objects a request body may hold anywhere (free-form fields set their own, lower bounds). */
export const MAX_INPUT_DEPTH = 32;

// A UTF-16 surrogate without its pair: no UTF-8 spelling, and jsonb refuses its \u escape.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored (PostgreSQL text and jsonb hold neither U+0000 nor unpaired surrogates), or undefined. */
function unstorableTextReason(s: string): string | undefined {
  if (s.includes('\u0000')) return 'the NUL character (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'an unpaired UTF-16 surrogate (\\ud800-\\udfff)';
  return undefined;
}

/** Answers whether a string can be stored: PostgreSQL text and jsonb hold neither U+0000 nor unpaired surrogates. */
export function isStorableText(s: string): boolean {
  return unstorableTextReason(s) === undefined;
}

/** A dotted field path as the error envelope names it (`customer.name`, `providers.0.displayName`); `(body)` for the root. */
function fieldOf(path: readonly (string | number)[], root: string): string {
  return path.length === 0 ? root : path.join('.');
}

/**
 * The first problem no operation may store, walking the value without recursion (so no nesting exhausts the stack): a
 * string or key holding U+0000 or an unpaired surrogate, or an array or object nested more than `maxDepth` levels.
 * Its `field` is the string's path, the path of the object holding the key, or the member of the top object holding
 * the too-deep nesting (`root` when the value is an array).
 */
export function findUnstorableValue(
  value: unknown,
  opts: { maxDepth?: number; root?: string } = {},
): ErrorDetail | undefined {
  const maxDepth = opts.maxDepth ?? MAX_INPUT_DEPTH;
  const root = opts.root ?? '(body)';
  const stack: { value: unknown; path: (string | number)[]; depth: number }[] = [{ value, path: [], depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const reason = unstorableTextReason(v);
      if (reason) return { field: fieldOf(path, root), code: 'INVALID', message: `must not contain ${reason}` };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > maxDepth)
      return {
        field: fieldOf(Array.isArray(value) ? [] : path.slice(0, 1), root),
        code: 'INVALID',
        message: `must not nest arrays and objects more than ${maxDepth} levels deep`,
      };
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k] of entries) {
      const reason = typeof k === 'string' ? unstorableTextReason(k) : undefined;
      if (reason)
        return { field: fieldOf(path, root), code: 'INVALID', message: `must not have a key containing ${reason}` };
    }
    // Pushed in reverse so members are checked in document order: the field reported is the first one.
    for (let i = entries.length - 1; i >= 0; i--)
      stack.push({ value: entries[i]![1], path: [...path, entries[i]![0]], depth: depth + 1 });
  }
  return undefined;
}

/**
 * The first problem of a request no operation may store, checked before any operation runs: path parameters, then
 * query values, then the body (field: the parameter's name, the query name, or the body's dotted path).
 */
export function findUnstorableInput(input: {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}): ErrorDetail | undefined {
  return (
    findUnstorableValue(input.params, { root: '(path)' }) ??
    findUnstorableValue(input.query, { root: '(query)' }) ??
    findUnstorableValue(input.body)
  );
}
