import type { OrganizationRecord } from '../../persistence/organization-repository.js';
import { Plan, type Organization, type OrganizationSettingsView } from '../../gen/scheduling/v1/resources.js';
import { enumNames } from './enum-names.js';

type PlanName = OrganizationRecord['settings']['plan'];

/** An organization plan as the typed API names it (one enum, `Plan`, set and answered alike). */
const PLAN: Record<PlanName, Plan> = {
  free: Plan.PLAN_FREE,
  launch: Plan.PLAN_LAUNCH,
  scale: Plan.PLAN_SCALE,
  enterprise: Plan.PLAN_ENTERPRISE,
};

/** The plan a request names; undefined for `PLAN_UNSPECIFIED` (not given) or a value of no plan. */
export const planOfMessage = enumNames(PLAN);

/** The settings of an organization row as answered: every setting with its value, no timezone unset. */
export function settingsViewMessage(settings: OrganizationRecord['settings']): OrganizationSettingsView {
  return {
    plan: PLAN[settings.plan],
    allowUnverifiable: settings.allowUnverifiable,
    timezone: settings.timezone ?? undefined,
    waitlistOfferTtlSeconds: settings.waitlistOfferTtlSeconds,
  };
}

/** The `Organization` message of an organization row. */
export function organizationMessage(org: OrganizationRecord): Organization {
  return {
    id: org.id,
    platformId: org.platformId,
    externalId: org.externalId,
    name: org.name,
    settings: settingsViewMessage(org.settings),
    providerGraphVersion: org.providerGraphVersion,
    createdAt: new Date(org.createdAt),
    updatedAt: new Date(org.updatedAt),
  };
}
