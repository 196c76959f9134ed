import test from 'ava';
import { instance } from '@viz-js/viz';
import { setup } from 'xstate';
import { describeMachine } from '../../../src/application/inspector/describe-machine.js';
import { machineDot } from '../../../src/application/inspector/machine-dot.js';

/** A small door: two guarded OPENs from `closed` (tried in order), a targetless KNOCK, a final `gone`. */
const door = describeMachine(
  setup({ guards: { isLocked: () => false } }).createMachine({
    id: 'door',
    initial: 'closed',
    states: {
      closed: { on: { OPEN: [{ guard: 'isLocked', target: 'jammed' }, { target: 'open' }], KNOCK: {} } },
      open: { on: { CLOSE: 'closed', LEAVE: 'gone' } },
      jammed: {},
      gone: { type: 'final' },
    },
  }),
  3,
);

/** A machine with a compound state, drawn as a cluster. */
const lamp = describeMachine(
  setup({}).createMachine({
    id: 'lamp',
    initial: 'on',
    states: {
      on: { initial: 'dim', states: { dim: { on: { UP: 'bright' } }, bright: {} }, on: { OFF: 'off' } },
      off: {},
    },
  }),
  1,
);

const edgeLine = (dot: string, from: string, to: string) =>
  dot.split('\n').filter((l) => l.includes(`"${from}" -> "${to}"`));

test('without a highlight the drawing is the catalogue one, byte for byte', (t) => {
  t.is(
    machineDot(door),
    [
      'digraph "door" {',
      '  rankdir=LR;',
      '  node [fontname="Helvetica", fontsize=11];',
      '  edge [fontname="Helvetica", fontsize=10];',
      '  "door.__start" [shape=point, label=""];',
      '  "door.closed" [label="closed", shape=box, style=rounded];',
      '  "door.open" [label="open", shape=box, style=rounded];',
      '  "door.jammed" [label="jammed", shape=box, style=rounded];',
      '  "door.gone" [label="gone", shape=doublecircle, style=rounded];',
      '  "door.__start" -> "door.closed";',
      '  "door.closed" -> "door.jammed" [label="OPEN [isLocked]"];',
      '  "door.closed" -> "door.open" [label="OPEN"];',
      '  "door.closed" -> "door.closed" [label="KNOCK"];',
      '  "door.open" -> "door.closed" [label="CLOSE"];',
      '  "door.open" -> "door.gone" [label="LEAVE"];',
      '}',
    ].join('\n'),
  );
  t.is(machineDot(door, {}), machineDot(door));
  t.is(machineDot(door, { active: [], taken: [] }), machineDot(door));
});

test('current states are filled, bold, double-bordered and marked with text, not colour alone', (t) => {
  const dot = machineDot(door, { active: ['door.open'] });
  t.regex(
    dot,
    /"door\.open" \[label="● open", shape=box, style="rounded,filled,bold", fillcolor="#fff3b0", penwidth=2, peripheries=2, class="active"\];/,
  );
  t.true(dot.includes('"door.closed" [label="closed", shape=box, style=rounded];'), 'other states unchanged');
  // A final state is already a double circle: a third border marks it.
  t.regex(
    machineDot(door, { active: ['door.gone'] }),
    /"door\.gone" \[label="● gone", shape=doublecircle, [^\]]*peripheries=3, class="active"\]/,
  );
  t.is((machineDot(door, { active: ['door.open'] }).match(/●/g) ?? []).length, 1);
});

test('taken transitions are bold with their step numbers; the target tells guarded twins apart; a targetless one loops', (t) => {
  const taken = [
    { n: 1, from: 'door.closed', event: 'KNOCK', to: 'door.closed' },
    { n: 2, from: 'door.closed', event: 'OPEN', to: 'door.open' },
    { n: 3, from: 'door.open', event: 'CLOSE', to: 'door.closed' },
    { n: 4, from: 'door.closed', event: 'OPEN', to: 'door.open' },
  ];
  const dot = machineDot(door, { active: ['door.open'], taken });
  t.deepEqual(edgeLine(dot, 'door.closed', 'door.open'), [
    '  "door.closed" -> "door.open" [label="2, 4: OPEN", color="#0a58ca", fontcolor="#0a58ca", penwidth=2.5, style=bold, class="taken"];',
  ]);
  t.deepEqual(
    edgeLine(dot, 'door.closed', 'door.jammed'),
    ['  "door.closed" -> "door.jammed" [label="OPEN [isLocked]"];'],
    'the guarded twin was not taken',
  );
  t.regex(edgeLine(dot, 'door.closed', 'door.closed')[0]!, /label="1: KNOCK".*style=bold/);
  t.regex(edgeLine(dot, 'door.open', 'door.closed')[0]!, /label="3: CLOSE"/);
  t.deepEqual(edgeLine(dot, 'door.open', 'door.gone'), ['  "door.open" -> "door.gone" [label="LEAVE"];']);
  t.false(dot.includes('dashed'), 'every step is in the catalogue');
});

test('a taken step the machine does not have is still drawn, dashed', (t) => {
  const dot = machineDot(door, {
    taken: [
      { n: 1, from: 'door.jammed', event: 'KICK', to: 'door.gone' },
      { n: 2, from: 'door.gone', event: 'OPEN', to: 'door.open' },
    ],
  });
  t.deepEqual(edgeLine(dot, 'door.jammed', 'door.gone'), [
    '  "door.jammed" -> "door.gone" [label="1: KICK (not in the machine)", color="#0a58ca", fontcolor="#0a58ca", penwidth=2.5, style=dashed, class="taken"];',
  ]);
  // OPEN exists, but not from `gone`: it is not credited to closed → open.
  t.regex(edgeLine(dot, 'door.gone', 'door.open')[0]!, /2: OPEN \(not in the machine\).*dashed/);
  t.deepEqual(edgeLine(dot, 'door.closed', 'door.open'), ['  "door.closed" -> "door.open" [label="OPEN"];']);
});

test("compound states: an active cluster is marked, and a step from a child matches its parent's transition", (t) => {
  const dot = machineDot(lamp, {
    active: ['lamp.on', 'lamp.on.bright'],
    taken: [
      { n: 1, from: 'lamp.on.dim', event: 'UP', to: 'lamp.on.bright' },
      { n: 2, from: 'lamp.on.bright', event: 'OFF', to: 'lamp.off' },
    ],
  });
  t.regex(dot, /subgraph "cluster_lamp\.on" \{\n {4}label="● on";\n {4}style="rounded,filled,bold";/);
  t.regex(dot, /"lamp\.on\.bright" \[label="● bright"/);
  t.regex(edgeLine(dot, 'lamp.on.dim', 'lamp.on.bright')[0]!, /label="1: UP"/);
  t.regex(edgeLine(dot, 'lamp.on', 'lamp.off')[0]!, /label="2: OFF"/);
  t.false(dot.includes('dashed'));
});

test('Graphviz lays out a highlighted drawing: the active node and taken edges carry their classes into the SVG', async (t) => {
  const viz = await instance();
  const dot = machineDot(door, {
    active: ['door.gone'],
    taken: [
      { n: 1, from: 'door.closed', event: 'OPEN', to: 'door.open' },
      { n: 2, from: 'door.open', event: 'LEAVE', to: 'door.gone' },
    ],
  });
  const result = viz.render(dot, { format: 'svg' });
  t.is(result.status, 'success', JSON.stringify(result.errors));
  const svg = result.output ?? '';
  t.is((svg.match(/class="node active"/g) ?? []).length, 1);
  t.is((svg.match(/class="edge taken"/g) ?? []).length, 2);
  t.true(svg.includes('>● gone</text>'));
  t.true(svg.includes('>2: LEAVE</text>'));
  t.is(viz.render(machineDot(door), { format: 'svg' }).status, 'success');
});
