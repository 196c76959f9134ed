import type { MachineDescription, StateDescription } from './describe-machine.js';

const quote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

function stateLines(s: StateDescription, indent: string): string[] {
  if (s.states.length === 0) {
    const shape = s.type === 'final' ? 'doublecircle' : 'box';
    return [`${indent}${quote(s.id)} [label=${quote(s.key)}, shape=${shape}, style=rounded];`];
  }
  return [
    `${indent}subgraph ${quote(`cluster_${s.id}`)} {`,
    `${indent}  label=${quote(s.key)};`,
    ...s.states.flatMap((c) => stateLines(c, `${indent}  `)),
    `${indent}}`,
  ];
}

/**
 * Draws a machine description as Graphviz DOT: one node per state (finals as double circles, compound states as
 * clusters), one edge per transition labelled `EVENT [guard]`; a transition without target loops on its source.
 */
export function machineDot(m: MachineDescription): string {
  const lines = [
    `digraph ${quote(m.id)} {`,
    '  rankdir=LR;',
    '  node [fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=10];',
    `  ${quote(`${m.id}.__start`)} [shape=point, label=""];`,
    ...m.states.flatMap((s) => stateLines(s, '  ')),
  ];
  if (m.initial) lines.push(`  ${quote(`${m.id}.__start`)} -> ${quote(`${m.id}.${m.initial}`)};`);
  for (const t of m.transitions) {
    const label = t.guard ? `${t.event} [${t.guard}]` : t.event;
    for (const target of (t.target ?? t.source).split(',')) lines.push(`  ${quote(t.source)} -> ${quote(target)} [label=${quote(label)}];`);
  }
  lines.push('}');
  return lines.join('\n');
}
