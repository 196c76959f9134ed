/** What a statement's span is named by: its operation and, when one is plain to see, the table it works on. */
export interface QuerySummary {
  /** `SELECT providers`, `INSERT bookings`, `COMMIT`. */
  name: string;
  /** `db.operation.name`: the statement's first keyword (`SELECT`, `WITH`, `BEGIN`). */
  operation: string;
  /** `db.collection.name`: the first table after FROM, INTO, UPDATE or JOIN, if any. */
  collection?: string;
}

const OPERATION = /^\s*(?:--[^\n]*\n\s*)*([a-z]+)/i;
const TABLE = /\b(?:from|into|update|join)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?)"?/i;
/** Summaries kept: the service runs a few hundred distinct statements; dynamic filters add a few more. */
const CACHE_SIZE = 2000;
const cache = new Map<string, QuerySummary>();

/**
 * The span name and attributes of a statement, read from its text alone (never its parameters): the operation and the
 * first table it names, as OpenTelemetry's database conventions name query spans (`{operation} {table}`).
 */
export function querySpanName(text: string): QuerySummary {
  const known = cache.get(text);
  if (known) return known;
  const operation = (OPERATION.exec(text)?.[1] ?? 'QUERY').toUpperCase();
  const collection = TABLE.exec(text)?.[1]?.toLowerCase();
  const summary: QuerySummary = collection
    ? { name: `${operation} ${collection}`, operation, collection }
    : { name: operation, operation };
  // Cleared rather than evicted one by one: only a flood of distinct texts fills it, and re-reading one is cheap.
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(text, summary);
  return summary;
}
