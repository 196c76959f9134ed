import { parseInput } from '../../contract/parse-input.js';
import { decodeCursor, page } from '../../contract/pagination.js';
import { ListResolutionsQuery } from '../../contract/schemas/resolution.js';
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

/** Answers GET /api/v2/resolutions: the caller's organization's resolutions from the ledger, newest first. */
export async function listResolutions(deps: { db: Database }, caller: Caller, query: unknown) {
  const q = parseInput(ListResolutionsQuery, query);
  const limit = q.limit ?? 20;
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
