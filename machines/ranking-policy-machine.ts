import { setup } from 'xstate';

/** Status of a ranking policy: the state of its machine, kept in `ranking_policies.status`. */
export type RankingPolicyStatus = 'draft' | 'active' | 'inactive';

/** Events of a ranking policy's lifecycle. */
export type RankingPolicyEvent =
  /** Snapshot the working copy as version N+1 and make it the organization's active policy. */
  | { type: 'ACTIVATE' }
  /** Another policy of the organization was activated (one active policy per organization). */
  | { type: 'DEACTIVATE' };

/**
 * The ranking-policy lifecycle (SPEC "Ranking policy", CONTRACT part 4): created as `draft`; `activate` makes it
 * `active` (again from `active`: the rollback after weights changed back; again from `inactive`); activating another
 * policy makes the active one `inactive`. It lives in PostgreSQL, not as an actor: it has no timer and every change
 * is one transaction that also writes the version snapshot, so the row is its only persisted state; this machine
 * decides each change (`rowStatusAfter`).
 */
export const rankingPolicyMachine = setup({
  types: { events: {} as RankingPolicyEvent },
}).createMachine({
  id: 'rankingPolicy',
  initial: 'draft',
  states: {
    draft: { on: { ACTIVATE: 'active' } },
    active: { on: { ACTIVATE: 'active', DEACTIVATE: 'inactive' } },
    inactive: { on: { ACTIVATE: 'active' } },
  },
});
