import type { z } from 'zod';
import type { CreateProviderBody, UpdateProviderBody } from '../contract/schemas/provider.js';
import { canonicalJson } from '../persistence/audit-log.js';
import type { ProviderDoc, ProviderView } from '../persistence/provider-repository.js';

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
      displayName: b.displayName,
      email: b.email ?? null,
      professionCode: b.professionCode ?? b.profession ?? null,
      specialtyCodes: b.specialtyCodes ?? [],
      languageCodes: b.languageCodes ?? [],
      modalityCodes: b.modalityCodes ?? [],
      serviceRegionCodes: b.serviceRegionCodes ?? [],
      insurancePlanCodes: b.insurancePlanCodes ?? [],
      ageGroupCodes: b.ageGroupCodes ?? [],
      licenseRecords: (b.licenseRecords ?? []).map((l) => ({ ...l })),
      acceptsNewClients: b.acceptsNewClients ?? null,
      timezone: b.timezone ?? null,
      bio: b.bio ?? null,
      username: b.username ?? null,
      location: b.location ?? null,
      panelCapacity: b.panelCapacity ?? null,
      panelCurrentCount: b.panelCurrentCount ?? null,
    },
  };
}

/** Applies a validated partial update to a provider's state; absent fields keep their value, null clears. */
export function patchProviderState(cur: ProviderView, p: UpdateInput): ProviderState {
  const pick = <K extends keyof ProviderDoc>(k: K, v: ProviderDoc[K] | undefined): ProviderDoc[K] => (v === undefined ? cur[k] : v);
  const professionCode = p.professionCode !== undefined ? p.professionCode : p.profession !== undefined ? p.profession : cur.professionCode;
  return {
    externalId: p.externalId ?? cur.externalId,
    status: p.status ?? cur.status,
    searchable: p.searchable ?? cur.searchable,
    doc: {
      displayName: p.displayName ?? cur.displayName,
      email: pick('email', p.email),
      professionCode,
      specialtyCodes: pick('specialtyCodes', p.specialtyCodes),
      languageCodes: pick('languageCodes', p.languageCodes),
      modalityCodes: pick('modalityCodes', p.modalityCodes),
      serviceRegionCodes: pick('serviceRegionCodes', p.serviceRegionCodes),
      insurancePlanCodes: pick('insurancePlanCodes', p.insurancePlanCodes),
      ageGroupCodes: pick('ageGroupCodes', p.ageGroupCodes),
      licenseRecords: p.licenseRecords === undefined ? cur.licenseRecords : p.licenseRecords.map((l) => ({ ...l })),
      acceptsNewClients: pick('acceptsNewClients', p.acceptsNewClients),
      timezone: pick('timezone', p.timezone),
      bio: pick('bio', p.bio),
      username: pick('username', p.username),
      location: pick('location', p.location),
      panelCapacity: pick('panelCapacity', p.panelCapacity),
      panelCurrentCount: pick('panelCurrentCount', p.panelCurrentCount),
    },
  };
}

/** Answers whether a new state differs from a provider's current one. */
export function providerStateChanged(cur: ProviderView, next: ProviderState): boolean {
  const curState: ProviderState = { externalId: cur.externalId, status: cur.status, searchable: cur.searchable, doc: cur };
  const norm = (s: ProviderState) => canonicalJson({ externalId: s.externalId, status: s.status, searchable: s.searchable, doc: {
    displayName: s.doc.displayName, email: s.doc.email, professionCode: s.doc.professionCode, specialtyCodes: s.doc.specialtyCodes,
    languageCodes: s.doc.languageCodes, modalityCodes: s.doc.modalityCodes, serviceRegionCodes: s.doc.serviceRegionCodes,
    insurancePlanCodes: s.doc.insurancePlanCodes, ageGroupCodes: s.doc.ageGroupCodes, licenseRecords: s.doc.licenseRecords,
    acceptsNewClients: s.doc.acceptsNewClients, timezone: s.doc.timezone, bio: s.doc.bio, username: s.doc.username, location: s.doc.location,
    panelCapacity: s.doc.panelCapacity, panelCurrentCount: s.doc.panelCurrentCount } });
  return norm(curState) !== norm(next);
}
