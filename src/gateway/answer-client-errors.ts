import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ServiceError } from '../errors/service-error.js';
import type { ErrorCode } from '../errors/error-catalogue.js';
import type { ServiceLogger } from '../observability/create-logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import { v2ErrorBody } from './error-envelope.js';
import { newRequestId } from './new-request-id.js';

/** A refusal of Node's HTTP parser: the HTTP status, and the contract code and field it is answered with. */
interface ParserRefusal {
  status: number;
  reason: string;
  code: ErrorCode;
  field?: string;
  message: string;
}

/**
 * The answer to a request Node's parser refused before any middleware saw it. The catalogue has no code for an
 * over-long request head, so it answers VALIDATION_ERROR with its own HTTP status (431); a request that came too slowly
 * is 408 REQUEST_TIMEOUT (CONTRACT part 1).
 */
function refusalOf(err: NodeJS.ErrnoException): ParserRefusal {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        code: 'VALIDATION_ERROR',
        field: '(headers)',
        message: 'The request line and headers are larger than 16 KB: shorten the path, the query or the headers.',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        reason: 'Payload Too Large',
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The chunk extensions of the request body are too large.',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        code: 'REQUEST_TIMEOUT',
        field: '(request)',
        message: 'The request was not received in time: its head or body came too slowly.',
      };
    default:
      return {
        status: 400,
        reason: 'Bad Request',
        code: 'VALIDATION_ERROR',
        field: '(request)',
        message: `The request is not valid HTTP/1.1 (${err.code ?? 'parse error'}).`,
      };
  }
}

/**
 * Answers the requests Node's HTTP parser refuses (a request line and headers over 16 KB, malformed HTTP) in the
 * contract's v2 error envelope with an `X-Service-Request-Id`, instead of Node's bare status line; a connection
 * whose current response has begun, or that is gone, is only closed. Node's two other bare answers are turned off:
 * an `Expect` other than `100-continue` (417) is ignored, as RFC 9110 allows, and the request served; an HTTP/1.1
 * request without `Host` (400) goes on to the gateway, which refuses it in the envelope. Call once on the gateway's server.
 */
export function answerClientErrors(
  server: Server,
  deps: { logger?: ServiceLogger; metrics?: ServiceMetrics } = {},
): void {
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  server.on(
    'clientError',
    (err: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean } | null }) => {
      // As Node's own handler: answer unless a response on this connection has begun (writing another would corrupt it).
      // A kept-alive connection that answered earlier requests is answered too.
      if (!socket.writable || socket._httpMessage?.headersSent || err.code === 'ECONNRESET') {
        socket.destroy();
        return;
      }
      const r = refusalOf(err);
      const requestId = newRequestId();
      const se = new ServiceError(r.code, r.message, r.field !== undefined ? { field: r.field } : {});
      const envelope = v2ErrorBody(se, requestId);
      const body = JSON.stringify({ error: { ...envelope.error, status: r.status } });
      socket.end(
        [
          `HTTP/1.1 ${r.status} ${r.reason}`,
          'Content-Type: application/json; charset=utf-8',
          `Content-Length: ${Buffer.byteLength(body)}`,
          `X-Service-Request-Id: ${requestId}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
      deps.metrics?.errors.inc({ code: r.code });
      deps.logger?.info(
        { door: 'rest', route: 'unparsed', status: r.status, requestId, errorCode: r.code, parserError: err.code },
        'request refused by the HTTP parser',
      );
    },
  );
}
