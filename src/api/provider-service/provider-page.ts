import type { ListProfessionalsRequest, ListProvidersRequest } from '../../gen/scheduling/v1/provider_service.js';
import { ProviderStatus } from '../../gen/scheduling/v1/resources.js';
import { ListProvidersQuery } from '../../contract/schemas/provider.js';
import type { Database } from '../../persistence/database.js';
import {
  countProviders,
  listProviderRows,
  toProviderView,
  type ProviderFilter,
  type ProviderView,
} from '../../persistence/provider-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';

/** A provider status filter; UNSPECIFIED: any status. */
const STATUS_FILTER: Partial<Record<ProviderStatus, ProviderView['status']>> = {
  [ProviderStatus.PROVIDER_STATUS_ACTIVE]: 'active',
  [ProviderStatus.PROVIDER_STATUS_INACTIVE]: 'inactive',
  [ProviderStatus.PROVIDER_STATUS_SUSPENDED]: 'suspended',
};

/**
 * The repository filter of a provider list request, each filter judged with the contract's rule into `problems` (codes
 * normalized); a v2 name counts over its short v1 alias (`specialtyCodes` over `specialty`).
 */
function readProviderFilter(
  problems: RequestProblems,
  caller: Caller,
  r: ListProvidersRequest | ListProfessionalsRequest,
): ProviderFilter {
  const q = ListProvidersQuery.shape;
  const status =
    r.providerStatus === undefined || r.providerStatus === ProviderStatus.PROVIDER_STATUS_UNSPECIFIED
      ? undefined
      : (STATUS_FILTER[r.providerStatus] ?? r.providerStatus);
  const filter = {
    organizationId: caller.organizationId,
    status: problems.check('status', q.status, status),
    searchable: r.searchable,
    externalId: problems.check('externalId', q.externalId, r.externalId),
    specialtyCodes: problems.check('specialtyCodes', q.specialtyCodes, r.specialtyCodes),
    specialty: problems.check('specialty', q.specialty, r.specialty),
    languageCodes: problems.check('languageCodes', q.languageCodes, r.languageCodes),
    language: problems.check('language', q.language, r.language),
    professionCode: problems.check('professionCode', q.professionCode, r.professionCode),
    profession: problems.check('profession', q.profession, r.profession),
    modalityCodes: problems.check('modalityCodes', q.modalityCodes, r.modalityCodes),
    modality: problems.check('modality', q.modality, r.modality),
    location: problems.check('location', q.location, r.location),
  };
  return {
    organizationId: filter.organizationId,
    status: filter.status,
    searchable: filter.searchable,
    externalId: filter.externalId,
    specialtyCode: filter.specialtyCodes ?? filter.specialty,
    languageCode: filter.languageCodes ?? filter.language,
    modalityCode: filter.modalityCodes ?? filter.modality,
    professionCode: filter.professionCode ?? filter.profession,
    location: filter.location,
  };
}

/** What a provider list reads. */
export interface ProviderPageDeps {
  db: Database;
}

/**
 * A page of the caller's providers matching a list request, in id order, with the count of all that match: the
 * filters and then the paging judged first (400 VALIDATION_ERROR naming the REST field: `status`, `limit`, `cursor`).
 */
export async function providerPage<M>(
  deps: ProviderPageDeps,
  caller: Caller,
  request: ListProvidersRequest | ListProfessionalsRequest,
  message: (p: ProviderView) => M,
) {
  const problems = new RequestProblems();
  const filter = readProviderFilter(problems, caller, request);
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const total = await countProviders(deps.db, filter);
  const rows = await listProviderRows(deps.db, filter, { after: paging.position(), limit: paging.size + 1 });
  return { ...pageMessage(rows.map(toProviderView), paging.size, (p) => p.id, message), total };
}
