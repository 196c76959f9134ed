import { SpanStatusCode, type Span } from '@opentelemetry/api';

/** Marks `span` failed by `err`: ERROR status with the error's type and message (never its data). */
export function markSpanFailed(span: Span, err: unknown): void {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  const type = typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'Error';
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof e?.message === 'string' ? e.message : type });
}
