import type { Database } from '../../persistence/database.js';
import {
  countServices,
  listServiceRows,
  toServiceView,
  type ServiceView,
} from '../../persistence/service-repository.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';

/**
 * A page of the caller's organization's live services in id order (ListServices, ListEventTypes), optionally of one
 * provider (404 PROVIDER_NOT_FOUND, 403 another organization's) or one slug: `size + 1` rows after `position`, and
 * the count of every page.
 */
export async function servicePage(
  db: Database,
  caller: Caller,
  filter: { providerId?: string | undefined; slug?: string | undefined },
  paging: { size: number; position: () => string | undefined },
): Promise<{ rows: ServiceView[]; total: number }> {
  if (filter.providerId !== undefined) await providerOfCaller(db, caller, filter.providerId);
  const where = { organizationId: caller.organizationId, ...filter };
  const total = await countServices(db, where);
  const rows = await listServiceRows(db, where, { after: paging.position(), limit: paging.size + 1 });
  return { rows: rows.map(toServiceView), total };
}
