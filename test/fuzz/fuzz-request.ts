/**
 * A fuzzed request as fast-check generates it: plain data with markers for what exists only once the fixtures do
 * (ids, keys, fresh idempotency keys) and for values too big to hold or print (deep nesting, long strings, raw
 * number tokens). `materialize` turns it into bytes on the wire.
 */

/** Markers inside a body, a parameter or a header; everything else is plain JSON. */
export type Marker =
  /** A fixture value by name (`provider`, `fresh.option`, `key.platform`…), resolved when the request is sent. */
  | { $ref: string }
  /** A JSON number token JSON.stringify cannot write (`1e400`, `-0`, 30 digits). */
  | { $raw: string }
  /** `depth` arrays or objects nested in one another around `1`. */
  | { $deep: number; kind: 'array' | 'object' }
  /** `text` repeated `times` times. */
  | { $repeat: string; times: number }
  /** An array of `times` copies of `item`. */
  | { $items: unknown; times: number };

/** How a path or query value goes on the wire: percent-encoded (`uri`), or as it is (bytes 0x21-0xff, latin1). */
export type Encoding = 'uri' | 'raw';

/** A path or query value: plain text or a marker, and its encoding. */
export interface WireValue {
  value: unknown;
  encoding: Encoding;
}

/** The body of a fuzzed request. */
export type FuzzBody =
  | { json: unknown }
  /** Bytes given as a latin1 string (each char one byte: invalid UTF-8 included). */
  | { bytes: string }
  /** `size` bytes of JSON-looking filler (over the 1 MB limit). */
  | { huge: number };

/** One request of a fuzz run. */
export interface FuzzRequest {
  /** How it was made: `valid` (an example with real ids), `mutated` (a valid one with a few changes), `random`, `raw` (bytes on a socket). */
  kind: 'valid' | 'mutated' | 'random' | 'raw';
  /** The openapi.json operation (`GET /api/v2/providers/{id}`) it was made from. */
  operation: string;
  method: string;
  /** The openapi path template. */
  route: string;
  path: Record<string, WireValue>;
  query: [string, WireValue][];
  /** Header name and value (a string or a marker); order kept. */
  headers: [string, unknown][];
  body?: FuzzBody;
  /** What the mutations changed, for the report. */
  changes: string[];
  /** Fixtures that must exist before the call though it does not name them (a hold to release). */
  needs?: string[];
  /** For `raw`: the request's bytes (latin1), `{path}`, `{auth}` and `{org}` filled in when sent. */
  raw?: string;
}

/** Whether a value is a marker (an object whose only key starts with `$`, or `$deep`/`$repeat`/`$items` pairs). */
function markerOf(v: unknown): Marker | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length === 0 || !keys[0]!.startsWith('$')) return undefined;
  return v as Marker;
}

/** Replaces `$ref` markers with fixture values (recursively); other markers stay for `jsonText`. */
export async function resolveRefs(v: unknown, lookup: (name: string) => Promise<unknown>): Promise<unknown> {
  const m = markerOf(v);
  if (m && '$ref' in m) return lookup(m.$ref);
  if (m && '$items' in m) return { $items: await resolveRefs(m.$items, lookup), times: m.times };
  if (m) return m;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) out.push(await resolveRefs(x, lookup));
    return out;
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, {
        value: await resolveRefs(x, lookup),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v;
}

/** JSON text of a value with markers written out (deep nesting without recursion, raw tokens as they are, references as `"@name"`). */
export function jsonText(v: unknown): string {
  const m = markerOf(v);
  if (m) {
    if ('$raw' in m) return m.$raw;
    if ('$deep' in m)
      return m.kind === 'array'
        ? `${'['.repeat(m.$deep)}1${']'.repeat(m.$deep)}`
        : `${'{"a":'.repeat(m.$deep)}1${'}'.repeat(m.$deep)}`;
    if ('$repeat' in m) return JSON.stringify(m.$repeat.repeat(m.times));
    if ('$items' in m) return `[${Array.from({ length: m.times }, () => jsonText(m.$items)).join(',')}]`;
    // Only a request shown in a report still has its references: `"@name"`.
    if ('$ref' in m) return JSON.stringify(`@${m.$ref}`);
  }
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Plain text of a resolved path, query or header value (markers written as their text). */
export function plainText(v: unknown): string {
  const m = markerOf(v);
  if (m && '$repeat' in m) return m.$repeat.repeat(m.times);
  if (typeof v === 'string') return v;
  return jsonText(v);
}

/**
 * Percent-encodes text as UTF-8; a lone surrogate (which has no UTF-8 form) is written as the three bytes a naive
 * encoder gives it (`%ED%A0%80`), which is invalid UTF-8.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair =
      c >= 0xd800 &&
      c <= 0xdbff &&
      i + 1 < text.length &&
      text.charCodeAt(i + 1) >= 0xdc00 &&
      text.charCodeAt(i + 1) <= 0xdfff;
    if (pair) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i++;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += `%${(0xe0 | (c >> 12)).toString(16).toUpperCase()}%${(0x80 | ((c >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (c & 0x3f)).toString(16).toUpperCase()}`;
      continue;
    }
    out += encodeURIComponent(text[i]!);
  }
  return out;
}

/** One line describing a request, short enough for a report (long values cut). */
export function describeRequest(r: FuzzRequest): string {
  const cut = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const show = (v: unknown) => cut(typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v)), 120);
  const path = Object.entries(r.path)
    .map(([k, v]) => `${k}=${show(v.value)}${v.encoding === 'raw' ? '(raw)' : ''}`)
    .join(' ');
  const query = r.query
    .map(([k, v]) => `${JSON.stringify(k)}=${show(v.value)}${v.encoding === 'raw' ? '(raw)' : ''}`)
    .join('&');
  const headers = r.headers.map(([k, v]) => `${k}: ${show(v)}`).join('; ');
  const body =
    r.body === undefined
      ? ''
      : 'json' in r.body
        ? cut(jsonText(r.body.json), 300)
        : 'bytes' in r.body
          ? `bytes ${show(r.body.bytes)}`
          : `${r.body.huge} bytes`;
  return cut(
    [
      `[${r.kind}] ${r.method} ${r.route}`,
      path && `path ${path}`,
      query && `query ${query}`,
      headers && `headers ${headers}`,
      body && `body ${body}`,
      r.changes.length ? `changes: ${r.changes.join(', ')}` : '',
      r.raw ? `raw ${show(r.raw)}` : '',
    ]
      .filter(Boolean)
      .join(' | '),
    1200,
  );
}
