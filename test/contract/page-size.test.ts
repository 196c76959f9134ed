import test from 'ava';
import { z } from 'zod';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { PAGE_SIZE } from '../../src/contract/fields.js';
import { readPageRequest } from '../../src/api/page-request.js';
import { RequestProblems } from '../../src/api/request-problems.js';
import { ServiceError } from '../../src/errors/service-error.js';

/**
 * The page-size rule is stated once (PAGE_SIZE): every cursor-paged list's REST `limit` and the typed lists'
 * `page_size` (readPageRequest) take exactly its range, and a page not asked for has its default size.
 */

/** The cursor-paged lists whose contract states a page-size rule of their own. */
const OWN_RULE = new Set(['GET /api/v2/resolutions']); // 1..100, default 20

/** The REST query schemas with a `limit` beside a `cursor`: the cursor-paged lists (OWN_RULE aside). */
function pagedQueries(): { name: string; limit: z.ZodType }[] {
  const out: { name: string; limit: z.ZodType }[] = [];
  for (const r of ALL_ROUTES) {
    const shape = (r.query as z.ZodObject | undefined)?.shape;
    if (shape?.limit && shape.cursor && !OWN_RULE.has(`${r.method} ${r.path}`))
      out.push({ name: `${r.method} ${r.path}`, limit: shape.limit as z.ZodType });
  }
  return out;
}

test('every cursor-paged list takes the page sizes of PAGE_SIZE as REST limit', (t) => {
  const lists = pagedQueries();
  t.true(lists.length >= 10, `found ${lists.length}`);
  for (const { name, limit } of lists) {
    t.true(limit.safeParse(String(PAGE_SIZE.min)).success, `${name}: the smallest`);
    t.true(limit.safeParse(String(PAGE_SIZE.max)).success, `${name}: the largest`);
    t.false(limit.safeParse(String(PAGE_SIZE.min - 1)).success, `${name}: below`);
    t.false(limit.safeParse(String(PAGE_SIZE.max + 1)).success, `${name}: above`);
    t.true(limit.safeParse(undefined).success, `${name}: optional`);
  }
});

test('a typed list judges page_size by the same rule, with the default for none', (t) => {
  const judged = (pageSize: number | undefined) => {
    const problems = new RequestProblems();
    const r = readPageRequest(problems, { pageSize });
    try {
      problems.throwIfAny();
      return r.size;
    } catch (err) {
      return (err as ServiceError).details?.[0]?.message;
    }
  };
  t.is(judged(undefined), PAGE_SIZE.default);
  t.is(judged(PAGE_SIZE.min), PAGE_SIZE.min);
  t.is(judged(PAGE_SIZE.max), PAGE_SIZE.max);
  t.is(judged(PAGE_SIZE.max + 1), `Too big: expected number to be <=${PAGE_SIZE.max}`);
  t.is(judged(PAGE_SIZE.min - 1), `Too small: expected number to be >=${PAGE_SIZE.min}`);
  // The REST door's words for the same sizes.
  const rest = pagedQueries()[0]!.limit;
  const restMessage = (v: string) => rest.safeParse(v).error?.issues[0]?.message;
  t.is(restMessage(String(PAGE_SIZE.max + 1)), `Too big: expected number to be <=${PAGE_SIZE.max}`);
  t.is(restMessage(String(PAGE_SIZE.min - 1)), `Too small: expected number to be >=${PAGE_SIZE.min}`);
});
