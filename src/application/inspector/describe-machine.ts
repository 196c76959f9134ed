import type { AnyStateMachine, AnyStateNode } from 'xstate';

/** A state of a machine as the catalogue shows it, with its child states. */
export interface StateDescription {
  /** The state node id (`hold.active`), which also names it in `transitions` and in the DOT drawing. */
  id: string;
  key: string;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  initial: string | null;
  states: StateDescription[];
}

/** One transition of a machine: `target` null means it stays in `source` (context changes only). */
export interface TransitionDescription {
  source: string;
  /** The event type, or `always` for an eventless transition. */
  event: string;
  target: string | null;
  guard: string | null;
  actions: string[];
}

/** A machine of the catalogue, read from its definition. */
export interface MachineDescription {
  id: string;
  version: number;
  initial: string | null;
  states: StateDescription[];
  events: string[];
  transitions: TransitionDescription[];
}

/** Names a guard as written in the machine: `isPastExpiry`, or `and(hasNoActiveHold, isNotConfirmed)` for a combinator. */
export function guardName(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return guard;
  const g = guard as { type?: unknown; guards?: unknown[]; check?: { name?: string }; name?: string };
  if (typeof g.type === 'string') return g.type;
  // and()/or()/not() are functions carrying their operands in `guards` and their rule in `check` (checkAnd, ...).
  if (Array.isArray(g.guards)) {
    const op = (g.check?.name ?? 'guard').replace(/^check/, '').toLowerCase();
    return `${op}(${g.guards.map((x) => guardName(x) ?? '?').join(', ')})`;
  }
  return g.name ? g.name : 'inline';
}

function actionName(action: unknown): string {
  if (typeof action === 'string') return action;
  const a = action as { type?: unknown; name?: string };
  return typeof a.type === 'string' ? a.type : a.name || 'inline';
}

function childNodes(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states) as AnyStateNode[];
}

function initialKey(node: AnyStateNode): string | null {
  const target = (node.config as { initial?: unknown }).initial;
  return typeof target === 'string' ? target : null;
}

function describeState(node: AnyStateNode): StateDescription {
  return {
    id: node.id,
    key: node.key,
    type: node.type,
    initial: initialKey(node),
    states: childNodes(node).map(describeState),
  };
}

function nodeTransitions(node: AnyStateNode): TransitionDescription[] {
  const defs = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
  return defs.map((d) => ({
    source: node.id,
    event: d.eventType === '' ? 'always' : d.eventType,
    target: d.target && d.target.length > 0 ? d.target.map((t: AnyStateNode) => t.id).join(',') : null,
    guard: guardName(d.guard),
    actions: (d.actions ?? []).map(actionName),
  }));
}

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...childNodes(node).flatMap(allNodes)];
}

/** Describes a machine from its definition (never a hand-written copy): states, events and every transition in document order. */
export function describeMachine(machine: AnyStateMachine, version: number): MachineDescription {
  const root = machine.root;
  return {
    id: machine.id,
    version,
    initial: initialKey(root),
    states: childNodes(root).map(describeState),
    events: [...new Set(machine.events as string[])],
    transitions: allNodes(root).flatMap(nodeTransitions),
  };
}

/** The state node ids of a snapshot value (`'active'` → `['hold.active']`; nested values give their leaves). */
export function stateIds(machineId: string, value: unknown): string[] {
  if (typeof value === 'string') return [`${machineId}.${value}`];
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
      const ids = stateIds(`${machineId}.${k}`, v);
      return ids.length > 0 ? ids : [`${machineId}.${k}`];
    });
  }
  return [];
}
