import type { ErrorDetail } from '../errors/service-error.js';
import { MAX_INPUT_DEPTH } from './find-unstorable-input.js';

/**
 * Deepest nesting of arrays and objects a JSON body may have to be parsed at all, on either door (RFC 8259 section 9
 * lets a parser set this limit). Operations refuse more than MAX_INPUT_DEPTH (32) after parsing; this bound, counted
 * before parsing, keeps a small body of brackets from holding the event loop for seconds in JSON.parse, and every later
 * walk of the value from meeting unbounded nesting.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACKET = 0x5b; // [
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACKET = 0x5d; // ]
const CLOSE_BRACE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * The refusal of JSON text that nests arrays and objects more than `maxDepth` levels, found in one pass over the text
 * without parsing it (brackets and braces count outside strings), or undefined. It reads as the refusal of the parsed
 * value would (find-unstorable-input.ts): VALIDATION_ERROR detail on the member of the top object holding the nesting,
 * or on `(body)` when the text is an array. Text that is not JSON is judged the same way; the parser refuses it next.
 */
export function findTooDeepJson(text: string, maxDepth = MAX_JSON_DEPTH): ErrorDetail | undefined {
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  let rootIsObject = false;
  // The last string the top object holds at its own level: the name of the member being read.
  let memberStart = -1;
  let memberEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (depth === 1 && rootIsObject) [memberStart, memberEnd] = [stringStart, i + 1];
      }
    } else if (c === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (depth === 0) rootIsObject = c === OPEN_BRACE;
      if (++depth > maxDepth) return tooDeep(rootIsObject ? memberName(text, memberStart, memberEnd) : '(body)');
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return undefined;
}

/** The member name a JSON string spells (escapes decoded), or `(body)` when there is none. */
function memberName(text: string, start: number, end: number): string {
  if (start < 0) return '(body)';
  try {
    return String(JSON.parse(text.slice(start, end)));
  } catch {
    return '(body)';
  }
}

function tooDeep(field: string): ErrorDetail {
  return {
    field,
    code: 'INVALID',
    message: `must not nest arrays and objects more than ${MAX_INPUT_DEPTH} levels deep`,
  };
}
