import { HoldPath } from '../../contract/schemas/hold.js';
import { RequestProblems, given } from '../request-problems.js';

/** The resolution and option of a hold's path (`id`, `optionId`), judged with their rules: both, or the 400 of them. */
export function holdPath(request: { id?: string | undefined; optionId?: string | undefined }) {
  const problems = new RequestProblems();
  const id = problems.check('id', HoldPath.shape.id, given(request.id));
  const optionId = problems.check('optionId', HoldPath.shape.optionId, given(request.optionId));
  problems.throwIfAny();
  return { id: id!, optionId: optionId! };
}
