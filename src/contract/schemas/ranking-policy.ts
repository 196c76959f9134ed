import { z } from 'zod';
import { cursor, instant, isoTimestamp, list, name200, nonNegativeInt, pageLimit, text } from '../fields.js';
import { normalizedCode } from '../normalized-code.js';
import { normalizeLanguageCode } from '../../domain/normalize-codes.js';
import { DEFAULT_POLICY, TIE_BREAKERS, WEIGHT_KEYS, type WeightKey } from '../../domain/ranking/ranking-policy.js';
import { notAWeightKey, WEIGHT_MAX } from '../../domain/ranking/validate-policy-input.js';
import { RANKING_FACTOR_CODES } from '../../domain/ranking/ranking-factor.js';
import { ResolutionPreferences } from './resolution.js';
import { protoView } from '../proto-view.js';

const weight = (key: WeightKey) =>
  z
    .number()
    .min(0)
    .max(WEIGHT_MAX)
    .meta({ description: `Points of this preference; default ${DEFAULT_POLICY.weights[key]}.` });

/** Preference weights: the six SPEC keys only; a hard-constraint key such as `languageCodes` is 400 with field `weights.<key>`. */
export const WeightsInput = z
  .strictObject(
    Object.fromEntries(WEIGHT_KEYS.map((k) => [k, weight(k).optional()])) as Record<
      WeightKey,
      z.ZodOptional<z.ZodNumber>
    >,
    // A key that is no weight is refused in the words of the policy rules (one key per issue: the gateway's edge
    // judges each unknown member alone).
    { error: (iss) => (iss.code === 'unrecognized_keys' ? notAWeightKey(iss.keys[0] ?? '') : undefined) },
  )
  .meta({
    description: `Non-negative numbers (at most ${WEIGHT_MAX}) keyed ${WEIGHT_KEYS.join(', ')}. Keys left out take the default policy's weights. Hard constraints are never weights.`,
  });

/** A tie-breaker: how options of equal score are ordered. */
export const TieBreaker = z.enum(TIE_BREAKERS);

/** Tie-breakers applied in order after score and availability density; each at most once. */
export const TieBreakersInput = list(TieBreaker, TIE_BREAKERS.length).meta({
  description: `Order of ${TIE_BREAKERS.join(', ')}, each at most once; default ${DEFAULT_POLICY.tieBreakers.join(', ')}.`,
});

/** Body of POST /api/v2/ranking-policies. */
export const CreateRankingPolicyBody = z.object({
  name: name200(),
  weights: WeightsInput.optional(),
  tieBreakers: protoView(TieBreakersInput.optional(), { name: 'tie_breaker_order' }),
});

/** Body of PATCH /api/v2/ranking-policies/:id: edits the working copy; `weights` given are merged key by key, `tieBreakers` replaces. */
export const UpdateRankingPolicyBody = z.object({
  name: name200().optional(),
  weights: WeightsInput.optional(),
  tieBreakers: protoView(TieBreakersInput.optional(), { name: 'tie_breaker_order' }),
});

/** Path of /api/v2/ranking-policies/:id. */
export const RankingPolicyPath = z.object({ id: text(200, 1) });

/** Statuses of a ranking policy: one `active` per organization; activating another makes it `inactive`. */
export const RankingPolicyStatus = z.enum(['draft', 'active', 'inactive']);

/** Query of GET /api/v2/ranking-policies. */
export const ListRankingPoliciesQuery = z.object({
  status: RankingPolicyStatus.optional(),
  limit: pageLimit().meta({ description: 'Page size, default 50, at most 500.' }),
  cursor: cursor().optional(),
});

/** Query of GET /api/v2/ranking-policies/:id/versions. */
export const ListRankingPolicyVersionsQuery = z.object({
  limit: pageLimit().meta({ description: 'Page size, default 50, at most 500.' }),
  cursor: cursor().optional(),
});

const Weights = z.object(
  Object.fromEntries(WEIGHT_KEYS.map((k) => [k, z.number().min(0)])) as Record<WeightKey, z.ZodNumber>,
);

/** A ranking policy's working copy; `activeVersion` is the version resolutions use while it is `active` (null before the first activation). */
export const RankingPolicy = z.object({
  id: z.string(),
  name: z.string(),
  status: RankingPolicyStatus,
  weights: Weights.meta({ description: 'All six keys; keys a request left out hold the default weights.' }),
  tieBreakers: protoView(z.array(TieBreaker), { name: 'tie_breaker_order' }),
  activeVersion: nonNegativeInt().nullable(),
  createdAt: instant(),
  updatedAt: instant(),
});

/** The answer of activate. */
export const ActivatedRankingPolicy = z.object({
  id: z.string(),
  status: z.literal('active'),
  version: nonNegativeInt(),
  activatedAt: instant(),
});

/** An immutable version snapshot made by activate. */
export const RankingPolicyVersion = z.object({
  version: nonNegativeInt(),
  name: z.string(),
  weights: Weights,
  tieBreakers: protoView(z.array(TieBreaker), { name: 'tie_breaker_order' }),
  activatedAt: instant(),
});

/** One hypothetical candidate of a simulation: a provider and one slot start. */
export const SimulationCandidateInput = z.object({
  providerId: text(200, 1),
  displayName: text(200),
  languageCodes: list(normalizedCode(normalizeLanguageCode, 'language code')).default([]),
  // Carried as its text: its offset decides day parts and the answer repeats it as sent, which a Timestamp loses.
  slotStart: protoView(
    isoTimestamp().meta({
      description:
        'ISO 8601 timestamp; its offset decides day parts unless preferences.timezone is given (none means UTC).',
    }),
    {
      schema: z.string().meta({
        description:
          'ISO 8601 timestamp as text (at most 40 characters); its offset decides day parts unless preferences.timezone is given (none means UTC), and the answer repeats it as sent.',
      }),
      name: 'slot_start_text',
    },
  ),
});

/** Body of POST /api/v2/ranking-policies/:id/simulate. */
export const SimulateRankingPolicyBody = z.object({
  candidates: list(SimulationCandidateInput),
  preferences: ResolutionPreferences.pick({
    languageCodes: true,
    dayParts: true,
    earliestAvailable: true,
    timezone: true,
  }).optional(),
});

/** The answer of simulate: the working copy's ranking of the candidates. */
export const SimulationResult = z.object({
  policy: z.object({ id: z.string(), version: z.null() }),
  ranked: z.array(
    z.object({
      rank: nonNegativeInt(),
      providerId: z.string(),
      displayName: z.string(),
      slotStart: z.string(),
      score: z.number(),
      rankingFactors: z.array(z.object({ code: z.enum(RANKING_FACTOR_CODES), points: z.number() })),
    }),
  ),
});
