import { ServiceError } from '../errors/service-error.js';
import type { Queryable } from '../persistence/database.js';
import { findProviderRow, toProviderView, type ProviderView } from '../persistence/provider-repository.js';
import type { Caller } from './caller.js';

/** Reads a provider of the caller's organization: 404 when unknown, 403 when another organization's. */
export async function providerOfCaller(
  db: Queryable,
  caller: Caller,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ProviderView> {
  const row = await findProviderRow(db, id, opts);
  if (!row) throw new ServiceError('PROVIDER_NOT_FOUND');
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return toProviderView(row);
}
