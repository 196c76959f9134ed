import type { z } from 'zod';
import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CreateRankingPolicyBody,
  ListRankingPoliciesQuery,
  ListRankingPolicyVersionsQuery,
  RankingPolicyPath,
  SimulateRankingPolicyBody,
  UpdateRankingPolicyBody,
} from '../contract/schemas/ranking-policy.js';
import { DEFAULT_POLICY, withDefaultWeights } from '../domain/ranking/ranking-policy.js';
import { simulate } from '../domain/ranking/simulate-ranking.js';
import { validatePolicyInput } from '../domain/ranking/validate-policy-input.js';
import { ServiceError, validationError, type ErrorDetail } from '../errors/service-error.js';
import type { Queryable } from '../persistence/database.js';
import { newId } from '../persistence/new-id.js';
import {
  findRankingPolicy,
  insertRankingPolicy,
  insertRankingPolicyVersion,
  listRankingPolicies,
  listRankingPolicyVersions,
  lockRankingPolicyActivations,
  nextRankingPolicyVersion,
  setStatusOfOtherActivePolicies,
  updateRankingPolicy,
  writeRankingPolicyActivation,
  type RankingPolicyRecord,
} from '../persistence/ranking-policy-repository.js';
import type { AppDeps } from './app-deps.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { recordAudit } from './record-audit.js';
import { rankingPolicyMachine, type RankingPolicyStatus } from '../../machines/ranking-policy-machine.js';
import { rowInitialStatus, rowStatusAfter } from '../../machines/row-lifecycle.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** Reads a policy of the caller's organization: 404 when unknown, 403 when another organization's. */
async function policyOfCaller(
  db: Queryable,
  caller: Caller,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<RankingPolicyRecord> {
  const found = await findRankingPolicy(db, id, opts);
  if (!found) throw new ServiceError('POLICY_NOT_FOUND');
  if (found.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return found.policy;
}

/**
 * Validates a policy body with the domain's rules (which name hard-constraint weight keys, duplicates and negative
 * weights precisely), then with the route schema for typing. On create only `name` is required.
 */
function parsePolicyBody<S extends z.ZodType>(schema: S, raw: unknown, opts: { create: boolean }): z.output<S> {
  const problems = validatePolicyInput(raw, { partial: true });
  const body = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (opts.create && (body.name === undefined || body.name === null) && !problems.some((p) => p.field === '(body)')) {
    problems.unshift({ field: 'name', code: 'VALIDATION_ERROR', message: 'is required' });
  }
  const details: ErrorDetail[] = problems.map((p) => ({
    field: p.field,
    code: p.message === 'is required' ? 'REQUIRED' : 'INVALID',
    message: p.message,
  }));
  if (details.length > 0) throw validationError(details);
  return parseInput(schema, raw);
}

/** RankingPolicyService operations: versioned ranking policies (SPEC 4.5, CONTRACT part 7). */
export function createRankingPolicyOperations(deps: AppDeps): OperationTable {
  return {
    CreateRankingPolicy: {
      audit: { ...AUDIT_ACTIONS.rankingPolicyCreate, kind: 'write' },
      async handler(caller, input) {
        const body = parsePolicyBody(CreateRankingPolicyBody, input.body, { create: true });
        const now = deps.clock();
        const weights = withDefaultWeights(body.weights ?? {});
        const tieBreakers = body.tieBreakers ?? [...DEFAULT_POLICY.tieBreakers];
        return deps.db.transaction(async (tx) => {
          const view = await insertRankingPolicy(tx, {
            id: newId('pol', now.getTime()),
            platformId: caller.platformId,
            organizationId: caller.organizationId,
            name: body.name,
            status: rowInitialStatus<RankingPolicyStatus>(rankingPolicyMachine),
            weights,
            tieBreakers,
            now,
          });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.rankingPolicyCreate,
            resourceId: view.id,
            after: view,
          });
          return view;
        });
      },
    },
    ListRankingPolicies: {
      audit: { ...AUDIT_ACTIONS.rankingPolicyList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListRankingPoliciesQuery, input.query);
        const limit = q.limit ?? 50;
        const rows = await listRankingPolicies(
          deps.db,
          { organizationId: caller.organizationId, status: q.status },
          { after: decodeCursor(q.cursor) ?? '', limit: limit + 1 },
        );
        return page(rows, limit, (p) => p.id);
      },
    },
    GetRankingPolicy: {
      audit: { ...AUDIT_ACTIONS.rankingPolicyRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        return policyOfCaller(deps.db, caller, id);
      },
    },
    UpdateRankingPolicy: {
      audit: { ...AUDIT_ACTIONS.rankingPolicyUpdate, kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        // Tenancy and existence first, so a foreign id is 403 whatever the body says.
        await policyOfCaller(deps.db, caller, id);
        const body = parsePolicyBody(UpdateRankingPolicyBody, input.body ?? {}, { create: false });
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const cur = await policyOfCaller(tx, caller, id, { forUpdate: true });
          const name = body.name ?? cur.name;
          const weights =
            body.weights === undefined ? cur.weights : { ...cur.weights, ...withoutUndefined(body.weights) };
          const tieBreakers = body.tieBreakers ?? cur.tieBreakers;
          if (
            name === cur.name &&
            JSON.stringify(weights) === JSON.stringify(cur.weights) &&
            JSON.stringify(tieBreakers) === JSON.stringify(cur.tieBreakers)
          )
            return cur;
          const view = await updateRankingPolicy(tx, id, { name, weights, tieBreakers, now });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.rankingPolicyUpdate,
            resourceId: id,
            before: cur,
            after: view,
          });
          return view;
        });
      },
    },
    ActivateRankingPolicy: {
      audit: { ...AUDIT_ACTIONS.rankingPolicyActivate, kind: 'write' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        await policyOfCaller(deps.db, caller, id);
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          // Serializes activations within one organization, so the one-active index never trips on a concurrent activation.
          await lockRankingPolicyActivations(tx, caller.organizationId);
          const cur = await policyOfCaller(tx, caller, id, { forUpdate: true });
          const version = await nextRankingPolicyVersion(tx, id);
          await insertRankingPolicyVersion(tx, {
            policyId: id,
            version,
            organizationId: caller.organizationId,
            name: cur.name,
            weights: cur.weights,
            tieBreakers: cur.tieBreakers,
            activatedAt: now,
          });
          // The previous active policy goes first: the partial unique index allows one active row per organization.
          // The machine decides both changes: this policy's, and the one the previously active policy makes.
          const to = rowStatusAfter<RankingPolicyStatus>(rankingPolicyMachine, cur.status, { type: 'ACTIVATE' });
          const offTo = rowStatusAfter<RankingPolicyStatus>(rankingPolicyMachine, 'active', { type: 'DEACTIVATE' });
          if (to !== 'active' || offTo === undefined)
            throw new Error(`ranking policy machine: no activation from ${cur.status}`);
          const deactivatedPolicyIds = await setStatusOfOtherActivePolicies(tx, {
            organizationId: caller.organizationId,
            exceptId: id,
            status: offTo,
            now,
          });
          await writeRankingPolicyActivation(tx, { id, version, status: to, activatedAt: now });
          const result = { id, status: to, version, activatedAt: now.toISOString() };
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.rankingPolicyActivate,
            resourceId: id,
            before: { status: cur.status, activeVersion: cur.activeVersion },
            after: { ...result, weights: cur.weights, tieBreakers: cur.tieBreakers, deactivatedPolicyIds },
          });
          return result;
        });
      },
    },
    ListRankingPolicyVersions: {
      audit: { ...AUDIT_ACTIONS.rankingPolicyRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        const q = parseInput(ListRankingPolicyVersionsQuery, input.query);
        await policyOfCaller(deps.db, caller, id);
        const limit = q.limit ?? 50;
        const position = decodeCursor(q.cursor);
        if (position !== undefined && !/^\d{1,9}$/.test(position))
          throw validationError([{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }]);
        const rows = await listRankingPolicyVersions(deps.db, id, {
          afterVersion: Number(position ?? 0),
          limit: limit + 1,
        });
        return page(rows, limit, (x) => String(x.version));
      },
    },
    SimulateRankingPolicy: {
      audit: { ...AUDIT_ACTIONS.rankingPolicySimulate, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        const policy = await policyOfCaller(deps.db, caller, id);
        const body = parseInput(SimulateRankingPolicyBody, input.body);
        let ranked;
        try {
          ({ ranked } = simulate(policy, body.candidates, body.preferences ?? {}));
        } catch (err) {
          if (!(err instanceof RangeError)) throw err;
          throw validationError([
            { field: err.message.split(':')[0] ?? 'candidates', code: 'INVALID', message: err.message },
          ]);
        }
        return { policy: { id: policy.id, version: null }, ranked };
      },
    },
  };
}

/** Drops keys whose value is undefined (zod keeps optional keys absent, but a merge must never write undefined). */
function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
