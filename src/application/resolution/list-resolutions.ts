import { decodeCursor, page } from '../../contract/pagination.js';
import { ServiceError } from '../../errors/service-error.js';
import type { Database } from '../../persistence/database.js';
import { listResolutions as readResolutions } from '../../persistence/resolution-repository.js';
import type { Caller } from '../caller.js';

const BAD_CURSOR = () =>
  new ServiceError('VALIDATION_ERROR', 'cursor is not one this service issued.', {
    field: 'cursor',
    details: [{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }],
  });

/** Reads a position `<ISO created_at>|<id>` made by the page before. */
function positionOf(cursor: string | undefined): { createdAt: Date; id: string } | undefined {
  const position = decodeCursor(cursor);
  if (position === undefined) return undefined;
  const [at, id, extra] = position.split('|');
  const createdAt = new Date(at ?? '');
  if (!at || !id || extra !== undefined || Number.isNaN(createdAt.getTime())) throw BAD_CURSOR();
  return { createdAt, id };
}

/**
 * A page of the caller's organization's resolutions from the ledger, newest first (GET /api/v2/resolutions), for a
 * page size and cursor already judged by the contract's rules.
 */
export async function listResolutions(
  deps: { db: Database },
  caller: Caller,
  q: { limit: number; cursor?: string | undefined },
) {
  const limit = q.limit;
  const before = positionOf(q.cursor);
  const rows = await readResolutions(deps.db, caller.organizationId, {
    limit: limit + 1,
    ...(before ? { before } : {}),
  });
  const paged = page(rows, limit, (r) => `${r.createdAt.toISOString()}|${r.id}`);
  return {
    ...paged,
    // The list's `status` is the outcome the resolution was made with (the contract), not its current state.
    data: paged.data.map(({ id, outcome, ...r }) => ({
      id,
      status: outcome,
      ...r,
      createdAt: r.createdAt.toISOString(),
      expiresAt: r.expiresAt.toISOString(),
    })),
  };
}
