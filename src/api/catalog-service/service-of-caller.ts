import { ServiceError } from '../../errors/service-error.js';
import type { Queryable } from '../../persistence/database.js';
import { findServiceRow, toServiceView, type ServiceView } from '../../persistence/service-repository.js';
import type { Caller } from '../../application/caller.js';

/** Reads a service of the caller's organization: 404 when unknown or removed, 403 when another organization's. */
export async function serviceOfCaller(
  db: Queryable,
  caller: Caller,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ServiceView> {
  const row = await findServiceRow(db, id, opts);
  if (!row) throw new ServiceError('SERVICE_NOT_FOUND');
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return toServiceView(row);
}

/** 409 for a title whose slug the provider's live services already have (the slug is derived from the title). */
export function slugTaken(providerId: string, slug: string): ServiceError {
  return new ServiceError(
    'DUPLICATE_EXTERNAL_ID',
    `Provider ${providerId} already has a service with the slug "${slug}"; the slug comes from the title, so choose a different title.`,
    { field: 'title' },
  );
}
