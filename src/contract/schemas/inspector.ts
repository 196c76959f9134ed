import { z } from 'zod';
import { protoView } from '../proto-view.js';
import { instant, nonNegativeInt, text } from '../fields.js';

/** The machines the inspector knows, which are also the kinds of actors it shows. */
export const INSPECTED_MACHINES = ['resolution', 'hold', 'booking', 'waitlist_entry'] as const;

/** A machine name (and actor kind): `resolution`, `hold` or `booking`. */
export const MachineName = z.enum(INSPECTED_MACHINES);

/** Path of GET /api/v2/inspector/machines/:machine. */
export const MachinePath = z.object({ machine: MachineName });

/** Path of GET /api/v2/inspector/actors/:kind/:id. */
export const ActorPath = z.object({ kind: MachineName, id: text(200, 1) });

/**
 * A state value as the typed API carries it: the state's key (`active`). The machines are flat, so an XState state
 * value is always one key; REST keeps the contract's free-form JSON.
 */
const stateName = (description: string) => z.string().meta({ description: `${description} The state's key.` });

/** A state of a machine. */
export const MachineState = z.object({
  id: z.string().meta({
    description: 'State node id (`hold.active`), as used by `transitions`, `activeStates` and the DOT drawing.',
  }),
  key: z.string(),
  type: z.enum(['atomic', 'compound', 'parallel', 'final', 'history']),
  initial: z.string().nullable().meta({ description: 'Key of the initial child state of a compound state.' }),
  // Kept one level deep in the schema: a recursive schema would need $refs that openapi.json does not carry.
  states: z
    .array(z.any())
    .meta({ description: 'Child states, each of this same shape (empty for the three machines today).' }),
});

protoView(MachineState.shape.states, {
  schema: z
    .array(MachineState)
    .meta({ description: 'Child states, each a MachineState (none in the machines today).' }),
  name: 'child_states',
});

/** A transition of a machine. */
export const MachineTransition = z.object({
  source: z.string().meta({ description: 'State node id the transition leaves.' }),
  event: z.string().meta({ description: 'Event type, or `always` for an eventless transition.' }),
  target: z
    .string()
    .nullable()
    .meta({ description: 'State node id it enters; null when it stays in `source` and only changes context.' }),
  guard: z.string().nullable().meta({
    description:
      'Guard name as written in the machine (`and(a, b)` for a combination); null when unguarded. Transitions of one source and event are tried in order.',
  }),
  actions: z.array(z.string()),
});

/** A machine of the catalogue. */
export const Machine = z.object({
  id: z.string(),
  version: nonNegativeInt().meta({ description: 'Machine version stored beside every persisted snapshot.' }),
  initial: z.string().nullable(),
  states: z.array(MachineState),
  events: z.array(z.string()),
  transitions: z.array(MachineTransition),
  dot: z.string().meta({
    description: 'The machine as Graphviz DOT, drawn from the same definition (render it with any Graphviz).',
  }),
});

/** Answer of GET /api/v2/inspector/machines. */
export const MachineCatalogue = z.object({ machines: z.array(Machine) });

/** Who caused a step of an actor. */
export const StepCause = z.object({
  type: z.enum(['key', 'system']).meta({
    description:
      '`key`: an API call; `system`: the service itself (a timer, a repair); unknown for steps recorded before causes were.',
  }),
  keyId: z.string().optional(),
  keyType: z.string().optional(),
  requestId: z.string().optional(),
});

/** One step of an actor's history. */
export const ActorHistoryEntry = z.object({
  seq: nonNegativeInt().meta({
    description: 'The revision the step wrote (1 = creation); increasing, with gaps once old entries are trimmed.',
  }),
  event: z.string().meta({
    description:
      'Event type, `create`, or `RESYNC` (the actor written again from its PostgreSQL ledger after a lost write).',
  }),
  from: protoView(z.unknown().meta({ description: 'State value before (null for `create`).' }), {
    schema: stateName('The state before the step; unset for `create`.').nullable(),
    name: 'from_state',
  }),
  to: protoView(z.unknown().meta({ description: 'State value after.' }), {
    schema: stateName('The state after the step.'),
    name: 'to_state',
  }),
  at: instant(),
  causedBy: StepCause.nullable().meta({ description: 'null when the step was recorded without its cause.' }),
});

/** A durable timer of an actor. */
export const ActorTimer = z.object({
  event: z
    .string()
    .meta({ description: 'Timer name; when due, the service sends the matching event (`expire` → EXPIRE).' }),
  dueAt: instant(),
  pending: z.boolean().meta({
    description:
      'true while the timer is scheduled, has not fired and the actor is not in a final state (a finished actor takes no timer event).',
  }),
});

/** Answer of GET /api/v2/inspector/actors/:kind/:id. */
export const ActorView = z.object({
  kind: MachineName,
  id: z.string(),
  machine: z.string(),
  machineVersion: nonNegativeInt().meta({ description: 'Version of the machine that wrote the stored snapshot.' }),
  state: protoView(z.unknown().meta({ description: 'Current state value.' }), {
    schema: stateName('The current state.').nullable(),
    name: 'state_name',
  }),
  activeStates: z
    .array(z.string())
    .meta({ description: 'State node ids of the current state (to highlight in the catalogue drawing).' }),
  status: z.string().meta({ description: 'XState status: `active`, `done` (a final state) or `error`.' }),
  revision: nonNegativeInt(),
  snapshot: z.record(z.string(), z.unknown()).meta({ description: "The persisted snapshot's context." }),
  history: z.array(ActorHistoryEntry).meta({ description: 'Oldest first; the store keeps the latest 50 steps.' }),
  timers: z.array(ActorTimer),
  transitionsTaken: z
    .array(z.object({ n: nonNegativeInt(), from: z.string(), event: z.string(), to: z.string() }))
    .meta({
      description: "The history's transitions numbered from 1 in order, as state node ids (comma-joined for several).",
    }),
});
