import { ServiceError } from '../errors/service-error.js';

/** Encodes a keyset position as an opaque cursor. */
export function encodeCursor(position: string): string {
  return Buffer.from(position, 'utf8').toString('base64url');
}

/** Decodes a cursor made by encodeCursor; a malformed one is 400. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const s = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[\w:.|-]{1,300}$/.test(s))
    throw new ServiceError('VALIDATION_ERROR', 'cursor is not one this service issued.', {
      field: 'cursor',
      details: [{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }],
    });
  return s;
}

/** Cuts a page fetched with limit+1 rows into `{data, hasMore, nextCursor}`. */
export function page<T>(
  rows: T[],
  limit: number,
  positionOf: (row: T) => string,
): { data: T[]; hasMore: boolean; nextCursor: string | null } {
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return { data, hasMore, nextCursor: hasMore && last !== undefined ? encodeCursor(positionOf(last)) : null };
}
