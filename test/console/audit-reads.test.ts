import test from 'ava';
import { createTypedServices } from '../../src/api/create-typed-services.js';
import { isSuccessfulRead, READ_ACTIONS } from '../../src/console/audit-reads.js';

/** The audit action of every operation, by kind, as the service's operation tables (typed services too) declare it. */
function actionsByKind(): Map<string, Set<string>> {
  // Only the tables' declarations are read, no handler runs: a stand-in answers every dependency a table touches while
  // it is built (a gauge registered, a helper made) with itself.
  const standIn: any = new Proxy(function standIn() {}, { get: () => standIn, apply: () => standIn });
  const tables = createTypedServices(standIn);
  const kinds = new Map<string, Set<string>>();
  for (const table of Object.values(tables))
    for (const op of Object.values(table ?? {})) {
      const set = kinds.get(op.audit.kind) ?? new Set<string>();
      set.add(op.audit.action);
      kinds.set(op.audit.kind, set);
    }
  return kinds;
}

test("the console's read actions are exactly the actions of the operations recorded as reads", (t) => {
  const kinds = actionsByKind();
  const reads = kinds.get('read') ?? new Set();
  t.true(reads.size > 20, `${reads.size} read actions`);
  t.deepEqual([...READ_ACTIONS].sort(), [...reads].sort());
  for (const [kind, actions] of kinds) {
    if (kind === 'read') continue;
    for (const action of actions) t.false(READ_ACTIONS.has(action), `${action} is a ${kind}`);
  }
});

test('a read that succeeded is hidden; a refused read and any write are not', (t) => {
  t.true(isSuccessfulRead({ action: 'booking.read', after: null }));
  t.false(isSuccessfulRead({ action: 'booking.read', after: { error: { code: 'FORBIDDEN' } } }));
  t.false(isSuccessfulRead({ action: 'request.refuse', after: { error: { code: 'VALIDATION_ERROR' } } }));
  t.false(isSuccessfulRead({ action: 'booking.cancel', after: { status: 'cancelled' } }));
  t.false(isSuccessfulRead({ action: 'provider.update', after: null }));
});
