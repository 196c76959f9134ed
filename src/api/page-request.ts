import { cursor, PAGE_SIZE } from '../contract/fields.js';
import { decodeCursor, page } from '../contract/pagination.js';
import type { RequestProblems } from './request-problems.js';

/** A list request's paging fields (`page_size`, `page_token`: REST `limit`, `cursor`). */
export interface PageRequest {
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

const CURSOR = cursor().optional();

/**
 * Judges a list request's paging (a size of PAGE_SIZE unless `sizes` says otherwise, token at most 200 characters; named `limit` and `cursor` as REST
 * clients name them) into `problems`; `position` reads the token once the request is known valid (undefined for the
 * first page; a token this service did not issue is 400 on `cursor`).
 */
export function readPageRequest(
  problems: RequestProblems,
  request: PageRequest,
  sizes: { min: number; max: number; default: number } = PAGE_SIZE,
) {
  const size = request.pageSize ?? sizes.default;
  // A negative size is no decimal count: REST text of one would not be digits either.
  if (!Number.isInteger(size) || size < 0) problems.add('limit', 'must be an integer');
  else if (size < sizes.min) problems.add('limit', `Too small: expected number to be >=${sizes.min}`);
  else if (size > sizes.max) problems.add('limit', `Too big: expected number to be <=${sizes.max}`);
  const token = problems.check('cursor', CURSOR, request.pageToken);
  return { size, token, position: () => decodeCursor(token) };
}

/** A page of rows fetched with size + 1 as a list response's fields, each row mapped to its message. */
export function pageMessage<T, M>(rows: T[], size: number, positionOf: (row: T) => string, message: (row: T) => M) {
  const p = page(rows, size, positionOf);
  return { data: p.data.map(message), hasMore: p.hasMore, nextPageToken: p.nextCursor ?? undefined };
}
