import { Plan as PlanValue, type OrganizationSettings } from '../../gen/scheduling/v1/resources.js';
import { OrganizationSettings as SettingsRules, PLANS } from '../../contract/schemas/organization.js';
import type { RequestProblems } from '../request-problems.js';
import { planOfMessage } from '../messages/organization-message.js';

type Plan = (typeof PLANS)[number];

/** The settings a request gives (each one left out when not given). */
export interface SettingsInput {
  plan?: Plan;
  allowUnverifiable?: boolean;
  timezone?: string;
  waitlistOfferTtlSeconds?: number;
}

/**
 * Reads the settings of a create or update request, judging each given one (a known plan, an IANA time zone, an offer
 * lifetime of 60..3600 s) into `problems` as `settings.<name>`.
 */
export function readSettings(problems: RequestProblems, settings: OrganizationSettings | undefined): SettingsInput {
  const out: SettingsInput = {};
  if (!settings) return out;
  const plan = settings.plan ?? PlanValue.PLAN_UNSPECIFIED;
  if (plan !== PlanValue.PLAN_UNSPECIFIED) {
    const known = planOfMessage(plan);
    if (known) out.plan = known;
    else problems.add('settings.plan', `Invalid option: expected one of ${PLANS.map((p) => `"${p}"`).join('|')}`);
  }
  if (settings.allowUnverifiable !== undefined) out.allowUnverifiable = settings.allowUnverifiable;
  const timezone = problems.check('settings.timezone', SettingsRules.shape.timezone, settings.timezone);
  if (timezone !== undefined) out.timezone = timezone;
  const ttl = problems.check(
    'settings.waitlistOfferTtlSeconds',
    SettingsRules.shape.waitlistOfferTtlSeconds,
    settings.waitlistOfferTtlSeconds,
  );
  if (ttl !== undefined) out.waitlistOfferTtlSeconds = ttl;
  return out;
}
