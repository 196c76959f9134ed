import { ServiceError } from '../../errors/service-error.js';
import type { AuditListPosition } from '../../persistence/audit-log.js';

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})\|([\w.:-]{1,200})$/;

/**
 * The list position a decoded page token names: `<timestamp>|<id>` of the last event of a page; digits alone are the
 * seq of that event, as tokens were before the list was ordered by time (a client paging across the upgrade goes on).
 * Anything else is 400 on `cursor`.
 */
export function auditListPosition(position: string | undefined): AuditListPosition | undefined {
  if (position === undefined) return undefined;
  const m = CURSOR.exec(position);
  if (m) return { timestamp: m[1]!, id: m[2]! };
  if (/^\d{1,15}$/.test(position)) return { seq: Number(position) };
  throw new ServiceError('VALIDATION_ERROR', 'cursor is not one this service issued.', {
    field: 'cursor',
    details: [{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }],
  });
}
