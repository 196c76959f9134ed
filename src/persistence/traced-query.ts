import { SpanKind, type Attributes } from '@opentelemetry/api';
import type { Tracing } from '../observability/create-tracing.js';
import { markSpanFailed } from '../observability/mark-span-failed.js';
import { querySpanName } from './query-span-name.js';

/** Longest statement text a span carries (`db.query.text`); the text has placeholders, never the parameters. */
const MAX_TEXT = 2000;

/** The attributes every PostgreSQL span of a pool on `url` carries: the system, database name and server. */
export function postgresSpanAttributes(url: string): Attributes {
  const attributes: Attributes = { 'db.system': 'postgresql', 'db.system.name': 'postgresql' };
  try {
    const u = new URL(url);
    if (u.pathname.length > 1) attributes['db.namespace'] = decodeURIComponent(u.pathname.slice(1));
    if (u.hostname) attributes['server.address'] = u.hostname;
    attributes['server.port'] = u.port ? Number(u.port) : 5432;
  } catch {
    // A connection string pg reads but URL does not: the spans go without the server.
  }
  return attributes;
}

/**
 * Wraps a pg `query` so each statement run within a traced request or job gets a CLIENT span named by its operation
 * and table (`SELECT providers`), with its text (placeholders only: the parameters are never read), ending when its
 * answer (or error: its SQLSTATE) arrives. Outside a traced request or job it calls `query` as it is.
 */
export function tracedQuery<Q extends (...args: never[]) => unknown>(
  tracing: Tracing,
  query: Q,
  attributes: Attributes,
): Q {
  return ((...args: Parameters<Q>) => {
    const first = args[0] as unknown;
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text;
    if (typeof text !== 'string') return query(...args);
    const summary = querySpanName(text);
    const span = tracing.childSpan(summary.name, {
      kind: SpanKind.CLIENT,
      attributes: {
        ...attributes,
        'db.operation.name': summary.operation,
        ...(summary.collection ? { 'db.collection.name': summary.collection } : {}),
        'db.query.text': text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text,
      },
    });
    if (!span) return query(...args);
    let answer: unknown;
    try {
      answer = query(...args);
    } catch (err) {
      markSpanFailed(span, err);
      span.end();
      throw err;
    }
    if (!(answer instanceof Promise)) {
      span.end();
      return answer;
    }
    return answer.then(
      (result: unknown) => {
        span.end();
        return result;
      },
      (err: unknown) => {
        const code = (err as { code?: unknown } | null)?.code;
        if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
        markSpanFailed(span, err);
        span.end();
        throw err;
      },
    );
  }) as Q;
}
