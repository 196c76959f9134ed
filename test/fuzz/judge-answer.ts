import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/error-catalogue.js';
import type { FuzzAnswer, WireRequest } from './send-fuzz-request.js';

/** What is wrong with an answer, by kind: a 5xx, an answer outside the contract's envelope, or no answer at all. */
export interface Verdict {
  kind: '5xx' | 'envelope' | 'no answer';
  problem: string;
}

const REQUEST_ID = /^req_[0-9a-f]{32}$/;
const V2_KEYS = new Set([
  'code',
  'message',
  'status',
  'requestId',
  'field',
  'recoverable',
  'suggestedAction',
  'details',
]);
const V1_KEYS = ['code', 'message', 'status'];
/**
 * Refusals of Node's HTTP parser (src/gateway/answer-client-errors.ts): made before any route is known, so always in
 * the v2 envelope, with the HTTP status of the parser's refusal (431 for an over-long head, 408 for a slow one).
 */
const PARSER_FIELDS = new Set(['(headers)', '(request)']);

/**
 * Judges one answer against CONTRACT part 1: never a 5xx; every answer carries `X-Service-Request-Id`; an error is the
 * v2 envelope `{error: {code, message, status, requestId, field?, recoverable, suggestedAction?, details?}}` (v1
 * routes: exactly `{error: {code, message, status}}`) with a catalogue code whose status is the HTTP status, and
 * `requestId` equal to the header; no stack trace in a message.
 */
export function judgeAnswer(w: WireRequest, a: FuzzAnswer): Verdict[] {
  if (a.failure !== undefined && a.status === 0) return [{ kind: 'no answer', problem: a.failure }];
  const out: Verdict[] = [];
  const envelope = (problem: string) => out.push({ kind: 'envelope', problem });
  if (a.status >= 500) out.push({ kind: '5xx', problem: `HTTP ${a.status}` });
  const requestId = a.headers['x-service-request-id'];
  if (!requestId || !REQUEST_ID.test(requestId)) envelope(`X-Service-Request-Id is ${JSON.stringify(requestId)}`);
  if (a.status < 400) {
    if (a.status >= 200 && !a.stream && (a.headers['content-type'] ?? '').startsWith('application/json')) {
      try {
        JSON.parse(a.body.toString('utf8'));
      } catch {
        envelope('a success whose JSON body does not parse');
      }
    }
    return out;
  }
  let body: any;
  try {
    body = JSON.parse(a.body.toString('utf8'));
  } catch {
    envelope(`the error body is not JSON: ${JSON.stringify(a.body.toString('utf8').slice(0, 120))}`);
    return out;
  }
  const error = body?.error;
  if (!error || typeof error !== 'object' || Object.keys(body).length !== 1) {
    envelope(`the error body is not {error: {...}}: ${JSON.stringify(body).slice(0, 160)}`);
    return out;
  }
  const keys = Object.keys(error);
  const v1 = w.target.startsWith('/api/v1/') && !PARSER_FIELDS.has(error.field);
  const parserRefusal = PARSER_FIELDS.has(error.field) && (a.status === 431 || a.status === 408 || a.status === 400);
  if (v1) {
    if (keys.slice().sort().join() !== V1_KEYS.slice().sort().join()) envelope(`v1 error keys ${keys.join(',')}`);
  } else {
    const extra = keys.filter((k) => !V2_KEYS.has(k));
    if (extra.length) envelope(`v2 error with keys outside the envelope: ${extra.join(',')}`);
    if (error.requestId !== requestId)
      envelope(`requestId ${JSON.stringify(error.requestId)} is not the header's ${JSON.stringify(requestId)}`);
    if (typeof error.recoverable !== 'boolean') envelope('recoverable is not a boolean');
    if (error.field !== undefined && typeof error.field !== 'string') envelope('field is not a string');
    if (error.suggestedAction !== undefined && typeof error.suggestedAction !== 'string')
      envelope('suggestedAction is not a string');
    if (
      error.details !== undefined &&
      (!Array.isArray(error.details) ||
        error.details.some(
          (d: any) => typeof d?.field !== 'string' || typeof d?.code !== 'string' || typeof d?.message !== 'string',
        ))
    ) {
      envelope(`details are not [{field, code, message}]: ${JSON.stringify(error.details).slice(0, 160)}`);
    }
  }
  const entry = ERROR_CATALOGUE[error.code as ErrorCode];
  if (!entry) envelope(`code ${JSON.stringify(error.code)} is not in the catalogue`);
  else if (entry.status !== a.status && !parserRefusal)
    envelope(`code ${error.code} is ${entry.status} in the catalogue, answered ${a.status}`);
  if (error.status !== a.status) envelope(`status ${error.status} in the body, ${a.status} on the wire`);
  if (typeof error.message !== 'string' || error.message.length === 0) envelope('message is not a non-empty string');
  else if (/\bat .+\.(ts|js):\d+|node_modules|Error: /.test(error.message))
    envelope(`the message shows internals: ${error.message.slice(0, 160)}`);
  return out;
}
