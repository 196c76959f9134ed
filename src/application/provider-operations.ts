import { ServiceError } from '../errors/service-error.js';
import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CreateProviderBody,
  ListProvidersQuery,
  ProviderPath,
  UpdateProviderBody,
} from '../contract/schemas/provider.js';
import type { Queryable } from '../persistence/database.js';
import {
  countProviders,
  externalIdTaken,
  findProviderRow,
  listProviderRows,
  toProviderView,
  type ProviderFilter,
  type ProviderView,
} from '../persistence/provider-repository.js';
import type { AppDeps } from './app-deps.js';
import { requirePlatformKey } from './authenticate.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { newProviderState, patchProviderState } from './provider-changes.js';
import { createProviderRecord, updateProviderRecord, type WriteContext } from './provider-writer.js';
import { recordAudit } from './record-audit.js';
import { toProfessionalV1 } from './professional-v1-view.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

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

/** The repository filter of a validated provider list query (the v1 names are aliases of the v2 ones). */
function providerFilter(caller: Caller, q: ReturnType<typeof ListProvidersQuery.parse>): ProviderFilter {
  return {
    organizationId: caller.organizationId,
    status: q.status,
    searchable: q.searchable,
    externalId: q.externalId,
    specialtyCode: q.specialtyCodes ?? q.specialty,
    languageCode: q.languageCodes ?? q.language,
    modalityCode: q.modalityCodes ?? q.modality,
    professionCode: q.professionCode ?? q.profession,
    location: q.location,
  };
}

/** ProviderService operations: the provider graph (CONTRACT part 3) and its v1 professional views. */
export function createProviderOperations(deps: AppDeps): OperationTable {
  const writeContext = (caller: Caller): WriteContext => ({
    platformId: caller.platformId,
    organizationId: caller.organizationId,
    mode: caller.mode,
    now: deps.clock(),
  });

  const list = async (caller: Caller, query: Record<string, string>) => {
    const q = parseInput(ListProvidersQuery, query);
    const limit = q.limit ?? 50;
    const filter = providerFilter(caller, q);
    const total = await countProviders(deps.db, filter);
    const rows = await listProviderRows(deps.db, filter, { after: decodeCursor(q.cursor), limit: limit + 1 });
    return { ...page(rows.map(toProviderView), limit, (p) => p.id), total };
  };

  return {
    CreateProvider: {
      audit: { ...AUDIT_ACTIONS.providerCreate, kind: 'write' },
      async handler(caller, input) {
        requirePlatformKey(caller);
        const body = parseInput(CreateProviderBody, input.body);
        const ctx = writeContext(caller);
        return deps.db.transaction(async (tx) => {
          const view = await createProviderRecord(tx, ctx, newProviderState(body));
          if (!view)
            throw new ServiceError(
              'DUPLICATE_EXTERNAL_ID',
              'A provider with this externalId already exists in the organization.',
              { field: 'externalId' },
            );
          await recordAudit(tx, caller, ctx.now, {
            ...AUDIT_ACTIONS.providerCreate,
            resourceId: view.id,
            after: view,
          });
          return view;
        });
      },
    },
    ListProviders: {
      audit: { ...AUDIT_ACTIONS.providerList, kind: 'read' },
      handler: (caller, input) => list(caller, input.query),
    },
    GetProvider: {
      audit: { ...AUDIT_ACTIONS.providerRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(ProviderPath, input.params);
        return providerOfCaller(deps.db, caller, id);
      },
    },
    UpdateProvider: {
      audit: { ...AUDIT_ACTIONS.providerUpdate, kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id } = parseInput(ProviderPath, input.params);
        await providerOfCaller(deps.db, caller, id);
        const body = parseInput(UpdateProviderBody, input.body ?? {});
        const ctx = writeContext(caller);
        return deps.db.transaction(async (tx) => {
          const cur = await providerOfCaller(tx, caller, id, { forUpdate: true });
          const next = patchProviderState(cur, body);
          if (next.externalId !== cur.externalId) {
            if (await externalIdTaken(tx, caller.organizationId, next.externalId))
              throw new ServiceError(
                'DUPLICATE_EXTERNAL_ID',
                'A provider with this externalId already exists in the organization.',
                { field: 'externalId' },
              );
          }
          const { view, changed } = await updateProviderRecord(tx, ctx, cur, next);
          if (changed)
            await recordAudit(tx, caller, ctx.now, {
              ...AUDIT_ACTIONS.providerUpdate,
              resourceId: id,
              before: cur,
              after: view,
            });
          return view;
        });
      },
    },
    DeleteProvider: {
      audit: { ...AUDIT_ACTIONS.providerDelete, kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id } = parseInput(ProviderPath, input.params);
        await providerOfCaller(deps.db, caller, id);
        const ctx = writeContext(caller);
        return deps.db.transaction(async (tx) => {
          const cur = await providerOfCaller(tx, caller, id, { forUpdate: true });
          const { view, changed } = await updateProviderRecord(tx, ctx, cur, {
            externalId: cur.externalId,
            status: 'inactive',
            searchable: false,
            doc: cur,
          });
          if (changed)
            await recordAudit(tx, caller, ctx.now, {
              ...AUDIT_ACTIONS.providerDelete,
              resourceId: id,
              before: cur,
              after: view,
            });
          return view;
        });
      },
    },
    ListProfessionals: {
      audit: { ...AUDIT_ACTIONS.providerList, kind: 'read' },
      async handler(caller, input) {
        const r = await list(caller, input.query);
        return { data: r.data.map(toProfessionalV1), total: r.total, hasMore: r.hasMore, nextCursor: r.nextCursor };
      },
    },
    GetProfessional: {
      audit: { ...AUDIT_ACTIONS.providerRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(ProviderPath, input.params);
        return toProfessionalV1(await providerOfCaller(deps.db, caller, id));
      },
    },
  };
}
