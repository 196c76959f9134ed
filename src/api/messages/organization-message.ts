import type { OrganizationRecord } from '../../persistence/organization-repository.js';
import {
  OrganizationSettingsView_Plan,
  type Organization,
  type OrganizationSettingsView,
} from '../../gen/scheduling/v1/resources.js';

/** An organization plan as the typed API names it. */
const PLAN_VIEW: Record<OrganizationRecord['settings']['plan'], OrganizationSettingsView_Plan> = {
  free: OrganizationSettingsView_Plan.PLAN_FREE,
  launch: OrganizationSettingsView_Plan.PLAN_LAUNCH,
  scale: OrganizationSettingsView_Plan.PLAN_SCALE,
  enterprise: OrganizationSettingsView_Plan.PLAN_ENTERPRISE,
};

/** The settings of an organization row as answered: every setting with its value, no timezone unset. */
export function settingsViewMessage(settings: OrganizationRecord['settings']): OrganizationSettingsView {
  return {
    plan: PLAN_VIEW[settings.plan],
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
