import type { MachineDescription, StateDescription, TransitionDescription } from './describe-machine.js';

/** One step an actor took, as the inspector numbers them: state node ids, comma-joined when several. */
export interface TakenTransition {
  n: number;
  from: string;
  event: string;
  to: string;
}

/** What to mark on a drawing of one actor's machine; without it the drawing is the bare catalogue one. */
export interface DotHighlight {
  /** State node ids to draw as current: filled, bold, double-bordered and prefixed with "● ". */
  active?: string[];
  /** Steps taken, drawn bold with their numbers (`1, 3: CONFIRM`); one the catalogue lacks is drawn dashed. */
  taken?: TakenTransition[];
}

const quote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

// Dark enough on white and on the fill for WCAG AA text contrast.
const TAKEN_COLOUR = '#0a58ca';
const ACTIVE_FILL = '#fff3b0';
const ACTIVE_ATTRS = `style="rounded,filled,bold", fillcolor=${quote(ACTIVE_FILL)}, penwidth=2, peripheries=2, class="active"`;

function stateLines(s: StateDescription, indent: string, active: ReadonlySet<string>): string[] {
  const on = active.has(s.id);
  const label = quote(on ? `● ${s.key}` : s.key);
  if (s.states.length === 0) {
    const shape = s.type === 'final' ? 'doublecircle' : 'box';
    // A double circle already has two borders: a third marks it as current.
    const activeAttrs = s.type === 'final' ? ACTIVE_ATTRS.replace('peripheries=2', 'peripheries=3') : ACTIVE_ATTRS;
    return [`${indent}${quote(s.id)} [label=${label}, shape=${shape}, ${on ? activeAttrs : 'style=rounded'}];`];
  }
  return [
    `${indent}subgraph ${quote(`cluster_${s.id}`)} {`,
    `${indent}  label=${label};`,
    ...(on
      ? [`${indent}  style="rounded,filled,bold"; fillcolor=${quote(ACTIVE_FILL)}; penwidth=2; class="active";`]
      : []),
    ...s.states.flatMap((c) => stateLines(c, `${indent}  `, active)),
    `${indent}}`,
  ];
}

/** True when `id` is the state node `ancestor` or one of its descendants (`hold.a.b` is within `hold.a`). */
const within = (id: string, ancestor: string): boolean => id === ancestor || id.startsWith(`${ancestor}.`);

/** The numbers of the steps that took transition `t` (same event, from its source, into its target). */
function stepsThrough(t: TransitionDescription, target: string, taken: readonly TakenTransition[]): number[] {
  return taken
    .filter(
      (s) =>
        s.event === t.event &&
        s.from.split(',').some((f) => within(f, t.source)) &&
        s.to.split(',').some((x) => within(x, target)),
    )
    .map((s) => s.n);
}

const takenAttrs = (steps: number[], label: string, dashed = false): string =>
  `label=${quote(`${steps.join(', ')}: ${label}`)}, color=${quote(TAKEN_COLOUR)}, fontcolor=${quote(TAKEN_COLOUR)}, penwidth=2.5, style=${dashed ? 'dashed' : 'bold'}, class="taken"`;

/**
 * Draws a machine description as Graphviz DOT: one node per state (finals as double circles, compound states as
 * clusters), one edge per transition labelled `EVENT [guard]`; a transition without target loops on its source.
 * With `highlight`, the current states are filled and marked "● ", and the transitions taken are drawn bold with
 * their step numbers; a taken step that matches no transition of the catalogue is added as a dashed edge, so a
 * drawing never hides what the actor did. Without it, the drawing is the catalogue's, unchanged.
 */
export function machineDot(m: MachineDescription, highlight: DotHighlight = {}): string {
  const active = new Set(highlight.active ?? []);
  const taken = highlight.taken ?? [];
  const lines = [
    `digraph ${quote(m.id)} {`,
    '  rankdir=LR;',
    '  node [fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=10];',
    `  ${quote(`${m.id}.__start`)} [shape=point, label=""];`,
    ...m.states.flatMap((s) => stateLines(s, '  ', active)),
  ];
  if (m.initial) lines.push(`  ${quote(`${m.id}.__start`)} -> ${quote(`${m.id}.${m.initial}`)};`);
  const drawn = new Set<number>();
  for (const t of m.transitions) {
    const label = t.guard ? `${t.event} [${t.guard}]` : t.event;
    for (const target of (t.target ?? t.source).split(',')) {
      const steps = stepsThrough(t, target, taken);
      for (const n of steps) drawn.add(n);
      const attrs = steps.length > 0 ? takenAttrs(steps, label) : `label=${quote(label)}`;
      lines.push(`  ${quote(t.source)} -> ${quote(target)} [${attrs}];`);
    }
  }
  // Steps no catalogue transition explains (a machine changed under a stored actor): drawn, dashed, never dropped.
  for (const s of taken.filter((x) => !drawn.has(x.n))) {
    for (const from of s.from.split(',')) {
      for (const to of s.to.split(','))
        lines.push(`  ${quote(from)} -> ${quote(to)} [${takenAttrs([s.n], `${s.event} (not in the machine)`, true)}];`);
    }
  }
  lines.push('}');
  return lines.join('\n');
}
