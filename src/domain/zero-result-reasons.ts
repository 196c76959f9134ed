import type { EligibilityRequest } from './eligibility/eligibility-request.js';
import type { ExclusionCode } from './eligibility/exclusion-codes.js';

/** Reason codes of a zero-result resolution (CONTRACT part 4). */
export type ZeroResultReasonCode =
  | 'NO_SERVICE_MATCH'
  | 'NO_PROFESSION_MATCH'
  | 'NO_SPECIALTY_MATCH'
  | 'NO_AGE_GROUP_MATCH'
  | 'NO_MODALITY_MATCH'
  | 'NO_SERVICE_REGION_MATCH'
  | 'NO_INSURANCE_MATCH'
  | 'NO_CAPACITY'
  | 'NO_LANGUAGE_MATCH'
  | 'NOT_ACCEPTING_NEW_CLIENTS'
  | 'NO_AVAILABILITY_IN_RANGE'
  | 'RANGE_TOO_NARROW';

/** One reason a resolution found nothing, written for a receptionist. */
export interface ZeroResultReason {
  reasonCode: ZeroResultReasonCode;
  description: string;
  affectedProviders: number;
  suggestion: string;
}

/** What a zero-result resolution knows when it explains itself. */
export interface ZeroResultInput {
  /** Each excluded or unknown provider once, under its first code (may include NO_VERIFIED_AVAILABILITY). */
  exclusionSummary: Partial<Record<ExclusionCode, number>>;
  totalProviders: number;
  /** Providers passing every hard constraint. */
  eligibleProviders: number;
  providersWithVerifiedAvailability: number;
  /** The half-open window of local dates searched. */
  dateRange: { from: string; to: string };
  /** The normalized constraints, used to name the requested values in descriptions. */
  request?: EligibilityRequest | undefined;
}

/** Windows shorter than this many days earn the RANGE_TOO_NARROW advice. */
export const NARROW_RANGE_DAYS = 3;

type Phrase = (n: string, values: string) => string;

interface ReasonText {
  reasonCode: ZeroResultReasonCode;
  /** The request field whose values the description names. */
  field?: keyof EligibilityRequest;
  description: Phrase;
  suggestion: string;
}

const one = (count: number, singular: string, plural: string) => `${count} ${count === 1 ? singular : plural}`;

// Keyed by exclusion code; iterated in pipeline order so reasons come out in that order.
const REASONS: Partial<Record<ExclusionCode, ReasonText>> = {
  SERVICE_NOT_OFFERED: {
    reasonCode: 'NO_SERVICE_MATCH',
    field: 'serviceSlug',
    description: (n) => `${n} do not offer this service.`,
    suggestion: 'Choose a service these providers offer, or add this service to a provider.',
  },
  PROFESSION_MISMATCH: {
    reasonCode: 'NO_PROFESSION_MATCH',
    field: 'professionCodes',
    description: (n, v) => `${n} are not of the requested profession${v} or have no profession on file.`,
    suggestion: 'Accept more professions, or complete the profession on provider profiles.',
  },
  SPECIALTY_MISMATCH: {
    reasonCode: 'NO_SPECIALTY_MATCH',
    field: 'specialtyCodes',
    description: (n, v) => `${n} do not have the requested specialty${v} or have no specialty on file.`,
    suggestion: 'Accept more specialties, or remove the specialty requirement.',
  },
  AGE_GROUP_MISMATCH: {
    reasonCode: 'NO_AGE_GROUP_MATCH',
    field: 'ageGroupCodes',
    description: (n, v) => `${n} do not see the client's age group${v} or have no age groups on file.`,
    suggestion: 'Check the client age group, or complete the age groups on provider profiles.',
  },
  MODALITY_MISMATCH: {
    reasonCode: 'NO_MODALITY_MATCH',
    field: 'modalityCodes',
    description: (n, v) => `${n} do not offer the requested format${v} or have no format on file.`,
    suggestion: 'Offer the client the other format (virtual or in person).',
  },
  SERVICE_REGION_MISMATCH: {
    reasonCode: 'NO_SERVICE_REGION_MATCH',
    field: 'serviceRegionCodes',
    description: (n, v) => `${n} do not serve the client's region${v} or have no regions on file.`,
    suggestion: 'Check the client region, or consider a virtual visit from a provider serving a nearby region.',
  },
  INSURANCE_NOT_ACCEPTED: {
    reasonCode: 'NO_INSURANCE_MATCH',
    field: 'insurancePlanCodes',
    description: (n, v) => `${n} do not accept the client's insurance${v} or have no accepted plans on file.`,
    suggestion: 'Ask whether the client can use another plan or pay directly (self pay).',
  },
  PANEL_FULL: {
    reasonCode: 'NO_CAPACITY',
    description: (n) => `${n} have a full client list (panel).`,
    suggestion: 'Add the client to the waitlist, or ask a provider to raise their panel capacity.',
  },
  LANGUAGE_MISMATCH: {
    reasonCode: 'NO_LANGUAGE_MATCH',
    field: 'languageCodes',
    description: (n, v) => `${n} do not speak the requested language${v} or have no languages on file.`,
    suggestion: 'Accept another language the client speaks, or arrange an interpreter.',
  },
  NOT_ACCEPTING_NEW_CLIENTS: {
    reasonCode: 'NOT_ACCEPTING_NEW_CLIENTS',
    description: (n) => `${n} are not accepting new clients or have not said whether they are.`,
    suggestion:
      'If the client is not new, search without the new-client requirement; otherwise add them to the waitlist.',
  },
};

function subject(count: number): string {
  return `${one(count, 'provider was', 'providers were')} left out because they`;
}

function requestedValues(request: EligibilityRequest | undefined, field: keyof EligibilityRequest | undefined): string {
  if (request === undefined || field === undefined) return '';
  const value = request[field];
  if (!Array.isArray(value) || value.length === 0) return '';
  return ` (${value.join(' or ')})`;
}

function windowDays(dateRange: { from: string; to: string }): number {
  const from = Date.parse(`${dateRange.from}T00:00:00Z`);
  const to = Date.parse(`${dateRange.to}T00:00:00Z`);
  return (to - from) / 86_400_000;
}

/** Explains a zero-result resolution: one reason per exclusion step that removed providers, then availability. */
export function buildZeroResultReasons(input: ZeroResultInput): ZeroResultReason[] {
  const reasons: ZeroResultReason[] = [];
  for (const [code, text] of Object.entries(REASONS) as [ExclusionCode, ReasonText][]) {
    const count = input.exclusionSummary[code] ?? 0;
    if (count === 0) continue;
    const values = requestedValues(input.request, text.field);
    reasons.push({
      reasonCode: text.reasonCode,
      description: text.description(subject(count), values),
      affectedProviders: count,
      suggestion: text.suggestion,
    });
  }

  if (input.eligibleProviders > 0 && input.providersWithVerifiedAvailability === 0) {
    const affected = input.exclusionSummary.NO_VERIFIED_AVAILABILITY ?? input.eligibleProviders;
    reasons.push({
      reasonCode: 'NO_AVAILABILITY_IN_RANGE',
      description: `${one(affected, 'provider matches', 'providers match')} the request but no confirmed free time was found between ${input.dateRange.from} and ${input.dateRange.to}.`,
      affectedProviders: affected,
      suggestion: 'Search later dates, or add the client to the waitlist to be told when time opens up.',
    });
    const days = windowDays(input.dateRange);
    if (days < NARROW_RANGE_DAYS) {
      reasons.push({
        reasonCode: 'RANGE_TOO_NARROW',
        description: `The search covered only ${one(days, 'day', 'days')}, which is too short to find free time reliably.`,
        affectedProviders: affected,
        suggestion: 'Search a window of 3 to 7 days.',
      });
    }
  }

  if (reasons.length === 0) {
    // Only steps without a reason code of their own removed providers (inactive, hidden, license), or there are none.
    const s = input.exclusionSummary;
    const hidden = (s.PROVIDER_INACTIVE ?? 0) + (s.NOT_SEARCHABLE ?? 0);
    const unlicensed =
      (s.LICENSE_REGION_MISMATCH ?? 0) +
      (s.LICENSE_EXPIRED ?? 0) +
      (s.LICENSE_UNVERIFIED ?? 0) +
      (s.LICENSE_MISSING ?? 0);
    const parts: string[] = [];
    if (hidden > 0) parts.push(`${one(hidden, 'provider is', 'providers are')} inactive or hidden from search`);
    if (unlicensed > 0)
      parts.push(
        `${one(unlicensed, 'provider has', 'providers have')} no valid, verified license for the requested region`,
      );
    reasons.push({
      reasonCode: 'NO_SERVICE_MATCH',
      description:
        input.totalProviders === 0
          ? 'The organization has no providers yet.'
          : `No provider can take this request: ${parts.length > 0 ? parts.join('; ') : 'none is eligible'}.`,
      affectedProviders: input.totalProviders - input.eligibleProviders,
      suggestion: 'Check that providers are active, searchable and licensed, and that they offer this service.',
    });
  }
  return reasons;
}
