import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import type { Tracing } from '../../observability/create-tracing.js';
import type { PostWebhook } from './post-webhook.js';

/** The receiver's host and port as span attributes (never the URL's path or query, which may hold a token). */
function serverOf(url: string): Attributes {
  try {
    const u = new URL(url);
    return {
      'server.address': u.hostname,
      'server.port': u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80,
      'url.scheme': u.protocol.replace(/:$/, ''),
    };
  } catch {
    return {};
  }
}

/**
 * `post` in a CLIENT span (`POST`, the receiver's host and port, the answer's status), sending the span's context to
 * the receiver as `traceparent` and `tracestate` headers, so a receiver that traces continues the trace of the delivery
 * (they are not signed: the signature covers the id, timestamp and body only).
 */
export function tracedPost(post: PostWebhook, tracing: Tracing): PostWebhook {
  return (url, body, headers) =>
    tracing.inSpan(
      'POST',
      { kind: SpanKind.CLIENT, attributes: { 'http.request.method': 'POST', ...serverOf(url) } },
      async (span) => {
        const sent: Record<string, string> = { ...headers };
        tracing.inject(tracing.active(), (key, value) => {
          sent[key] = value;
        });
        const r = await post(url, body, sent);
        if (r.statusCode !== null) span.setAttribute('http.response.status_code', r.statusCode);
        if (r.error !== undefined) {
          span.setAttribute('error.type', r.statusCode === null ? 'no_answer' : String(r.statusCode));
          span.setStatus({ code: SpanStatusCode.ERROR, message: r.error });
        }
        return r;
      },
    );
}
