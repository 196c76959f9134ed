import type { IncomingMessage } from 'node:http';
import { ServiceError, validationError } from '../errors/service-error.js';
import { findTooDeepJson } from '../contract/json-depth.js';

/** The body size limit (CONTRACT part 1). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** A JSON request body: its value, which the request message is built from. */
export interface JsonBody {
  value: unknown;
}

/**
 * Reads a JSON request body and checks that it parses: its value, or undefined when empty; 413 over 1 MB,
 * 400 INVALID_JSON when malformed; nested more than MAX_JSON_DEPTH levels, 400 VALIDATION_ERROR on the member holding
 * the nesting, found before parsing (as operations refuse more than 32 levels once parsed).
 */
export async function readJsonBody(req: IncomingMessage): Promise<JsonBody | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_LIMIT_BYTES) {
    req.resume();
    throw new ServiceError('PAYLOAD_TOO_LARGE');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > BODY_LIMIT_BYTES) {
        req.resume();
        throw new ServiceError('PAYLOAD_TOO_LARGE');
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    // The stream failed: the client went away mid-body, or its chunked encoding broke (the parser then answers it).
    // Either way it is the request's fault, not the service's: no 500 in the log for it.
    throw new ServiceError('VALIDATION_ERROR', 'The request body ended before it was whole.', {
      field: '(body)',
      cause: err,
    });
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  // Counted before parsing, not after: a megabyte of brackets takes JSON.parse over a second of the event loop.
  const tooDeep = findTooDeepJson(text);
  if (tooDeep) throw validationError([tooDeep]);
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    throw new ServiceError('INVALID_JSON', `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
