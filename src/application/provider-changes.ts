import type { z } from 'zod';
import type { CreateProviderBody, UpdateProviderBody } from '../contract/schemas/provider.js';
import { canonicalJson } from '../persistence/audit-log.js';
import {
  PROVIDER_DOC_KEYS,
  providerDoc,
  readProviderDoc,
  type ProviderDoc,
  type ProviderView,
} from '../persistence/provider-repository.js';

type CreateInput = z.output<typeof CreateProviderBody>;
type UpdateInput = z.output<typeof UpdateProviderBody>;

/** The full writable state of a provider: status flags plus the stored doc. */
export interface ProviderState {
  externalId: string;
  status: 'active' | 'inactive' | 'suspended';
  searchable: boolean;
  doc: ProviderDoc;
}

/** Builds the state of a new provider from a validated create body (defaults: active, searchable). */
export function newProviderState(b: CreateInput): ProviderState {
  return {
    externalId: b.externalId,
    status: b.status ?? 'active',
    searchable: b.searchable ?? true,
    doc: {
      ...readProviderDoc(b),
      professionCode: b.professionCode ?? b.profession ?? null,
      licenseRecords: (b.licenseRecords ?? []).map((l) => ({ ...l })),
    },
  };
}

/** Applies a validated partial update to a provider's state; absent fields keep their value, null clears. */
export function patchProviderState(cur: ProviderView, p: UpdateInput): ProviderState {
  const doc: Record<string, unknown> = {};
  for (const k of PROVIDER_DOC_KEYS) doc[k] = p[k] === undefined ? cur[k] : p[k];
  const professionCode =
    p.professionCode !== undefined ? p.professionCode : p.profession !== undefined ? p.profession : cur.professionCode;
  return {
    externalId: p.externalId ?? cur.externalId,
    status: p.status ?? cur.status,
    searchable: p.searchable ?? cur.searchable,
    doc: {
      ...(doc as unknown as ProviderDoc),
      displayName: p.displayName ?? cur.displayName,
      professionCode,
      licenseRecords: p.licenseRecords === undefined ? cur.licenseRecords : p.licenseRecords.map((l) => ({ ...l })),
    },
  };
}

/** Answers whether a new state differs from a provider's current one. */
export function providerStateChanged(cur: ProviderView, next: ProviderState): boolean {
  const norm = (s: ProviderState) =>
    canonicalJson({ externalId: s.externalId, status: s.status, searchable: s.searchable, doc: providerDoc(s.doc) });
  return norm({ externalId: cur.externalId, status: cur.status, searchable: cur.searchable, doc: cur }) !== norm(next);
}
