import type { DateRangeInput } from '../../gen/scheduling/v1/resources.js';
import { answer, type OperationAnswer, type TypedAnswer } from '../../application/operation.js';

/**
 * A dateRange as the contract's rule takes it (`{from, to}`, judged by the domain: INVALID_DATE_RANGE); a date without
 * presence reads `''` as not given. Unset: not given.
 */
export function dateRangeGiven(r: DateRangeInput | undefined): Record<string, unknown> | undefined {
  if (!r) return undefined;
  return { from: r.fromDate === '' ? undefined : r.fromDate, to: r.toDate === '' ? undefined : r.toDate };
}

/**
 * The typed answer of an idempotent run: its REST answer (as first answered, or replayed) turned into the response
 * message, its headers (`idempotent-replayed`) kept.
 */
export function typedAnswerOf<Res>(out: OperationAnswer, message: (result: any) => Res): TypedAnswer<Res> {
  return answer(message(out.result), out.headers) as TypedAnswer<Res>;
}
