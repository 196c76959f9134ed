import type { z } from 'zod';
import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CreateRankingPolicyBody, ListRankingPoliciesQuery, ListRankingPolicyVersionsQuery, RankingPolicyPath, SimulateRankingPolicyBody, UpdateRankingPolicyBody,
} from '../contract/schemas/ranking-policy.js';
import { DEFAULT_POLICY, withDefaultWeights, type RankingWeights, type TieBreaker } from '../domain/ranking/ranking-policy.js';
import { simulate } from '../domain/ranking/simulate-ranking.js';
import { validatePolicyInput } from '../domain/ranking/validate-policy-input.js';
import { ServiceError, validationError, type ErrorDetail } from '../errors/service-error.js';
import type { Queryable } from '../persistence/database.js';
import { newId } from '../persistence/new-id.js';
import type { AppDeps } from './app-deps.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { recordAudit } from './record-audit.js';

/** A ranking policy (its working copy) as the API answers it. */
export interface RankingPolicyView {
  id: string;
  name: string;
  status: 'draft' | 'active' | 'inactive';
  weights: RankingWeights;
  tieBreakers: TieBreaker[];
  activeVersion: number | null;
  createdAt: string;
  updatedAt: string;
}

/** Maps a ranking_policies row to its answer shape. */
function toPolicyView(row: Record<string, any>): RankingPolicyView {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    weights: row.weights,
    tieBreakers: row.tie_breakers,
    activeVersion: row.active_version ?? null,
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}

/** Reads a policy of the caller's organization: 404 when unknown, 403 when another organization's. */
async function policyOfCaller(db: Queryable, caller: Caller, id: string, opts: { forUpdate?: boolean } = {}): Promise<RankingPolicyView> {
  const r = await db.query(`SELECT * FROM ranking_policies WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  const row = r.rows[0];
  if (!row) throw new ServiceError('POLICY_NOT_FOUND');
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return toPolicyView(row);
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
  const details: ErrorDetail[] = problems.map((p) => ({ field: p.field, code: p.message === 'is required' ? 'REQUIRED' : 'INVALID', message: p.message }));
  if (details.length > 0) throw validationError(details);
  return parseInput(schema, raw);
}

/** The version of a policy's versions list as answered. */
function toVersionView(row: Record<string, any>) {
  return { version: row.version as number, name: row.name as string, weights: row.weights as RankingWeights, tieBreakers: row.tie_breakers as TieBreaker[], activatedAt: (row.activated_at as Date).toISOString() };
}

// Serializes activations within one organization, so the one-active index never trips on a concurrent activation.
const ACTIVATION_LOCK = 'ranking_policy.activate:';

/** RankingPolicyService operations: versioned ranking policies (SPEC 4.5, CONTRACT part 7). */
export function createRankingPolicyOperations(deps: AppDeps): OperationTable {
  return {
    CreateRankingPolicy: {
      audit: { action: 'ranking_policy.create', resourceType: 'ranking_policy', kind: 'write' },
      async handler(caller, input) {
        const body = parsePolicyBody(CreateRankingPolicyBody, input.body, { create: true });
        const now = deps.clock();
        const weights = withDefaultWeights(body.weights ?? {});
        const tieBreakers = body.tieBreakers ?? [...DEFAULT_POLICY.tieBreakers];
        return deps.db.transaction(async (tx) => {
          const r = await tx.query(
            `INSERT INTO ranking_policies (id, platform_id, organization_id, name, status, weights, tie_breakers, active_version, created_at, updated_at)
             VALUES ($1,$2,$3,$4,'draft',$5,$6,NULL,$7,$7) RETURNING *`,
            [newId('pol', now.getTime()), caller.platformId, caller.organizationId, body.name, JSON.stringify(weights), JSON.stringify(tieBreakers), now]);
          const view = toPolicyView(r.rows[0]);
          await recordAudit(tx, caller, now, { action: 'ranking_policy.create', resourceType: 'ranking_policy', resourceId: view.id, after: view });
          return view;
        });
      },
    },
    ListRankingPolicies: {
      audit: { action: 'ranking_policy.list', resourceType: 'ranking_policy', kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListRankingPoliciesQuery, input.query);
        const limit = q.limit ?? 50;
        const args: unknown[] = [caller.organizationId, decodeCursor(q.cursor) ?? '', limit + 1];
        let where = 'organization_id = $1 AND id > $2';
        if (q.status) { args.push(q.status); where += ` AND status = $${args.length}`; }
        const r = await deps.db.query(`SELECT * FROM ranking_policies WHERE ${where} ORDER BY id LIMIT $3`, args);
        return page(r.rows.map(toPolicyView), limit, (p) => p.id);
      },
    },
    GetRankingPolicy: {
      audit: { action: 'ranking_policy.read', resourceType: 'ranking_policy', kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        return policyOfCaller(deps.db, caller, id);
      },
    },
    UpdateRankingPolicy: {
      audit: { action: 'ranking_policy.update', resourceType: 'ranking_policy', kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        // Tenancy and existence first, so a foreign id is 403 whatever the body says.
        await policyOfCaller(deps.db, caller, id);
        const body = parsePolicyBody(UpdateRankingPolicyBody, input.body ?? {}, { create: false });
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const cur = await policyOfCaller(tx, caller, id, { forUpdate: true });
          const name = body.name ?? cur.name;
          const weights = body.weights === undefined ? cur.weights : { ...cur.weights, ...withoutUndefined(body.weights) };
          const tieBreakers = body.tieBreakers ?? cur.tieBreakers;
          if (name === cur.name && JSON.stringify(weights) === JSON.stringify(cur.weights) && JSON.stringify(tieBreakers) === JSON.stringify(cur.tieBreakers)) return cur;
          const r = await tx.query('UPDATE ranking_policies SET name = $2, weights = $3, tie_breakers = $4, updated_at = $5 WHERE id = $1 RETURNING *',
            [id, name, JSON.stringify(weights), JSON.stringify(tieBreakers), now]);
          const view = toPolicyView(r.rows[0]);
          await recordAudit(tx, caller, now, { action: 'ranking_policy.update', resourceType: 'ranking_policy', resourceId: id, before: cur, after: view });
          return view;
        });
      },
    },
    ActivateRankingPolicy: {
      audit: { action: 'ranking_policy.activate', resourceType: 'ranking_policy', kind: 'write' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        await policyOfCaller(deps.db, caller, id);
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [ACTIVATION_LOCK + caller.organizationId]);
          const cur = await policyOfCaller(tx, caller, id, { forUpdate: true });
          const v = await tx.query<{ next: number }>('SELECT coalesce(max(version), 0) + 1 AS next FROM ranking_policy_versions WHERE policy_id = $1', [id]);
          const version = Number(v.rows[0]?.next ?? 1);
          await tx.query(
            `INSERT INTO ranking_policy_versions (policy_id, version, organization_id, name, weights, tie_breakers, activated_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
            [id, version, caller.organizationId, cur.name, JSON.stringify(cur.weights), JSON.stringify(cur.tieBreakers), now]);
          // The previous active policy goes first: the partial unique index allows one active row per organization.
          const off = await tx.query<{ id: string }>(
            `UPDATE ranking_policies SET status = 'inactive', updated_at = $3 WHERE organization_id = $1 AND status = 'active' AND id <> $2 RETURNING id`,
            [caller.organizationId, id, now]);
          await tx.query(`UPDATE ranking_policies SET status = 'active', active_version = $2, activated_at = $3, updated_at = $3 WHERE id = $1`, [id, version, now]);
          const result = { id, status: 'active' as const, version, activatedAt: now.toISOString() };
          await recordAudit(tx, caller, now, {
            action: 'ranking_policy.activate', resourceType: 'ranking_policy', resourceId: id,
            before: { status: cur.status, activeVersion: cur.activeVersion },
            after: { ...result, weights: cur.weights, tieBreakers: cur.tieBreakers, deactivatedPolicyIds: off.rows.map((x) => x.id) },
          });
          return result;
        });
      },
    },
    ListRankingPolicyVersions: {
      audit: { action: 'ranking_policy.read', resourceType: 'ranking_policy', kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        const q = parseInput(ListRankingPolicyVersionsQuery, input.query);
        await policyOfCaller(deps.db, caller, id);
        const limit = q.limit ?? 50;
        const position = decodeCursor(q.cursor);
        if (position !== undefined && !/^\d{1,9}$/.test(position)) throw validationError([{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }]);
        const r = await deps.db.query('SELECT * FROM ranking_policy_versions WHERE policy_id = $1 AND version > $2 ORDER BY version LIMIT $3', [id, Number(position ?? 0), limit + 1]);
        return page(r.rows.map(toVersionView), limit, (x) => String(x.version));
      },
    },
    SimulateRankingPolicy: {
      audit: { action: 'ranking_policy.simulate', resourceType: 'ranking_policy', kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(RankingPolicyPath, input.params);
        const policy = await policyOfCaller(deps.db, caller, id);
        const body = parseInput(SimulateRankingPolicyBody, input.body);
        let ranked;
        try {
          ({ ranked } = simulate(policy, body.candidates, body.preferences ?? {}));
        } catch (err) {
          if (!(err instanceof RangeError)) throw err;
          throw validationError([{ field: err.message.split(':')[0] ?? 'candidates', code: 'INVALID', message: err.message }]);
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
