import test from 'ava';
import { rankingPolicyMachine } from '../../machines/ranking-policy-machine.js';
import { providerImportMachine } from '../../machines/provider-import-machine.js';
import type { AnyStateMachine } from 'xstate';
import { rowInitialStatus, rowStatusAfter } from '../../machines/row-lifecycle.js';

const after = (machine: AnyStateMachine, status: string, event: { type: string }) =>
  rowStatusAfter<string>(machine, status, event);

test('ranking policy: created draft; activate from draft, active (rollback) and inactive; only an active policy is deactivated', (t) => {
  t.is(rowInitialStatus(rankingPolicyMachine), 'draft');
  t.is(after(rankingPolicyMachine, 'draft', { type: 'ACTIVATE' }), 'active');
  t.is(after(rankingPolicyMachine, 'active', { type: 'ACTIVATE' }), 'active');
  t.is(after(rankingPolicyMachine, 'inactive', { type: 'ACTIVATE' }), 'active');
  t.is(after(rankingPolicyMachine, 'active', { type: 'DEACTIVATE' }), 'inactive');
  t.is(after(rankingPolicyMachine, 'draft', { type: 'DEACTIVATE' }), undefined);
  t.is(after(rankingPolicyMachine, 'inactive', { type: 'DEACTIVATE' }), undefined);
});

test('provider import: validating, claimed into processing (again when stale), then completed, back to validating or failed; the ends are final', (t) => {
  t.is(rowInitialStatus(providerImportMachine), 'validating');
  t.is(after(providerImportMachine, 'validating', { type: 'CLAIM' }), 'processing');
  t.is(after(providerImportMachine, 'processing', { type: 'CLAIM' }), 'processing');
  t.is(after(providerImportMachine, 'processing', { type: 'FINISH' }), 'completed');
  t.is(after(providerImportMachine, 'processing', { type: 'RETRY' }), 'validating');
  t.is(after(providerImportMachine, 'processing', { type: 'FAIL' }), 'failed');
  t.is(after(providerImportMachine, 'validating', { type: 'FINISH' }), undefined);
  for (const end of ['completed', 'failed']) {
    for (const type of ['CLAIM', 'FINISH', 'RETRY', 'FAIL'])
      t.is(after(providerImportMachine, end, { type }), undefined, `${end} + ${type}`);
  }
});
