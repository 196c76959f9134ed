import { stateIds } from '../../application/inspector/describe-machine.js';
import { machineDot, type DotHighlight } from '../../application/inspector/machine-dot.js';
import type { Page } from '../page.js';
import { dataTable } from '../ui/data-table.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { jsonBlock, statusBadge, timeCell } from '../ui/format.js';
import { followActor, type ActorViewBody, type LiveState } from './follow-actor.js';
import { machineFigure, type MachineBody } from './inspector-page.js';

type HistoryEntry = ActorViewBody['history'][number];
type Timer = ActorViewBody['timers'][number];

/** A state value as text: `confirmed`, or the JSON of a nested value. */
const stateText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function causeCell(e: HistoryEntry): HTMLElement | string {
  if (!e.causedBy) return h('span', { class: 'muted' }, 'not recorded');
  if (e.causedBy.type === 'system') return 'system';
  return h(
    'span',
    {},
    h('code', {}, e.causedBy.keyId ?? 'key'),
    ' ',
    h('span', { class: 'muted small' }, e.causedBy.keyType ?? ''),
  );
}

/** The drawing's marks and its spoken label: live, or as after the history entry `seq`. */
function highlightOf(view: ActorViewBody, seq: number | undefined): DotHighlight & { label: string } {
  const name = `State diagram of the ${view.machine} machine for ${view.kind} ${view.id}`;
  const index = seq === undefined ? -1 : view.history.findIndex((e) => e.seq === seq);
  const entry = view.history[index];
  if (!entry)
    return {
      active: view.activeStates,
      taken: view.transitionsTaken,
      label: `${name}: current state ${stateText(view.state)}, ${view.transitionsTaken.length} transitions taken.`,
    };
  // transitionsTaken numbers the history's steps that had a `from`, in order: step k's prefix is what came before it.
  const steps = view.history.slice(0, index + 1).filter((e) => e.from !== null && e.from !== undefined).length;
  return {
    active: stateIds(view.machine, entry.to),
    taken: view.transitionsTaken.slice(0, steps),
    label: `${name}, as after step ${entry.seq} (${entry.event}): state ${stateText(entry.to)}, ${steps} transitions taken.`,
  };
}

/**
 * A timer's state: `pending` while it will fire; `fired` once its event is in the history (`expire` → EXPIRE);
 * otherwise `not needed`: the actor reached a final state first (a cancelled booking's `complete`).
 */
function timerState(view: ActorViewBody, timer: Timer): HTMLElement {
  if (timer.pending) return statusBadge('pending');
  const event = timer.event.toUpperCase();
  if (view.history.some((e) => e.event === event)) return statusBadge('fired');
  return h('span', { class: 'badge badge-inactive' }, 'not needed');
}

function liveText(state: LiveState): string {
  switch (state.mode) {
    case 'connecting':
      return 'Connecting…';
    case 'live':
      return 'Live: following changes as they happen';
    case 'polling':
      return 'Live: reading the actor every second';
    case 'reconnecting':
      return `Connection lost; reconnecting in ${Math.ceil(state.inMs / 1000)} s`;
    case 'stopped':
      return 'Not following';
  }
}

/**
 * One resolution, hold or booking actor: its machine drawn with the current state and the numbered transitions
 * taken, its facts, history, timers and persisted snapshot, followed live while the page is open. A history entry
 * redraws the machine as it was after that step, until "Back to live".
 */
export const actorInspectorPage: Page = {
  path: '/console/inspector/:kind/:id',
  title: 'Inspector: actor',
  needsOrganization: true,
  async render({ api, params, signal }) {
    const kind = params.kind ?? '';
    const id = params.id ?? '';
    const [machine, first] = await Promise.all([
      api.get<MachineBody>(`/api/v2/inspector/machines/${encodeURIComponent(kind)}`, undefined, signal),
      api.get<ActorViewBody>(
        `/api/v2/inspector/actors/${encodeURIComponent(kind)}/${encodeURIComponent(id)}`,
        undefined,
        signal,
      ),
    ]);
    /** The latest view received. */
    let live = first;
    /** The view the facts, timers and snapshot show: the latest, or the one the reader pinned a step in. */
    let shown = first;
    /** The history entry (seq) the reader is viewing; undefined: live. */
    let pinned: number | undefined;
    let liveMode: LiveState['mode'] | undefined;
    let lastDot = '';
    let drawing = 0;

    const liveDot = h('span', { class: 'live-dot', 'aria-hidden': 'true' });
    const liveLabel = h('span', {}, 'Connecting…');
    const liveProblem = h('div', {});
    const facts = h('dl', { class: 'facts' });
    const viewing = h('p', { class: 'viewing-text', tabindex: -1 });
    const newSteps = h('span', { class: 'new-steps', role: 'status' });
    const backToLive = h('button', { type: 'button', class: 'secondary' }, 'Back to live');
    const viewingBar = h('div', { class: 'viewing' }, viewing, newSteps, backToLive);
    const figure = h('div', { class: 'diagram-slot' });
    const historySlot = h('div', {});
    const timersSlot = h('div', {});
    const snapshotSlot = h('div', {});

    function drawFacts(): void {
      replaceChildren(
        facts,
        h('div', {}, h('dt', {}, 'State'), h('dd', { 'data-fact': 'state' }, statusBadge(stateText(shown.state)))),
        h('div', {}, h('dt', {}, 'Status'), h('dd', {}, shown.status)),
        h('div', {}, h('dt', {}, 'Machine version'), h('dd', {}, String(shown.machineVersion))),
        h('div', {}, h('dt', {}, 'Revision'), h('dd', { 'data-fact': 'revision' }, String(shown.revision))),
        h('div', {}, h('dt', {}, 'Last step'), h('dd', {}, timeCell(shown.history.at(-1)?.at))),
      );
    }

    function drawViewing(): void {
      const entry = pinned === undefined ? undefined : live.history.find((e) => e.seq === pinned);
      viewingBar.classList.toggle('pinned', entry !== undefined);
      backToLive.hidden = entry === undefined;
      if (!entry) {
        viewing.textContent = `Showing the live state: ${stateText(live.state)} (revision ${live.revision}).`;
        newSteps.textContent = '';
        return;
      }
      viewing.replaceChildren(
        h('strong', {}, `Viewing step ${entry.seq}`),
        ` of ${live.revision}: the machine as after ${entry.event}, in ${stateText(entry.to)}.`,
      );
      const arrived = live.revision - shown.revision;
      newSteps.textContent = arrived > 0 ? `${arrived} new step${arrived === 1 ? '' : 's'} arrived.` : '';
    }

    async function drawDiagram(): Promise<void> {
      const mark = highlightOf(live, pinned);
      const dot = machineDot(machine, mark);
      if (dot === lastDot) return;
      lastDot = dot;
      const mine = ++drawing;
      const drawn = await machineFigure(dot, mark.label);
      if (mine !== drawing || signal.aborted) return;
      replaceChildren(figure, drawn);
      // On a phone the drawing scrolls sideways: bring the current state into view (sideways only, never the page).
      // The first drawing is made before the page is in the document: measure once it has been laid out.
      requestAnimationFrame(() => {
        const node = drawn.querySelector('g.node.active');
        if (!node || drawn.scrollWidth <= drawn.clientWidth) return;
        const [box, frame] = [node.getBoundingClientRect(), drawn.getBoundingClientRect()];
        drawn.scrollLeft += box.left - frame.left - (frame.width - box.width) / 2;
      });
    }

    function drawHistory(): void {
      const focusedSeq = (document.activeElement as HTMLElement | null)?.dataset?.seq;
      const table = dataTable<HistoryEntry>(
        `History of ${kind} ${id}, oldest first; choose a step to see the machine as after it`,
        [
          {
            header: 'Step',
            numeric: true,
            cell: (e) =>
              h(
                'button',
                {
                  type: 'button',
                  class: 'link-button',
                  'data-seq': String(e.seq),
                  'aria-pressed': String(pinned === e.seq),
                  onclick: () => pin(e.seq),
                },
                `Show step ${e.seq}`,
              ),
          },
          { header: 'Event', cell: (e) => h('code', {}, e.event) },
          { header: 'From', cell: (e) => (e.from === null || e.from === undefined ? '—' : stateText(e.from)) },
          { header: 'To', cell: (e) => stateText(e.to) },
          { header: 'Time', cell: (e) => timeCell(e.at) },
          { header: 'Caused by', cell: causeCell },
          { header: 'Request id', cell: (e) => (e.causedBy?.requestId ? h('code', {}, e.causedBy.requestId) : '—') },
        ],
        live.history,
        'No steps recorded.',
      );
      for (const button of table.querySelectorAll<HTMLButtonElement>('button[data-seq]')) {
        if (Number(button.dataset.seq) === pinned) button.closest('tr')?.classList.add('selected');
      }
      replaceChildren(historySlot, table);
      // A live update rebuilds the table: keep the keyboard where it was.
      if (focusedSeq) table.querySelector<HTMLButtonElement>(`button[data-seq="${focusedSeq}"]`)?.focus();
    }

    function drawDetails(): void {
      replaceChildren(
        timersSlot,
        dataTable<Timer>(
          `Durable timers of ${kind} ${id}`,
          [
            { header: 'Timer', cell: (x) => h('code', {}, x.event) },
            { header: 'Due', cell: (x) => timeCell(x.dueAt) },
            { header: 'State', cell: (x) => timerState(shown, x) },
          ],
          shown.timers,
          'No durable timers.',
        ),
      );
      replaceChildren(
        snapshotSlot,
        h('p', {}, `Revision ${shown.revision}, written by machine version ${shown.machineVersion}.`),
        jsonBlock(shown.snapshot, `Persisted snapshot context of ${kind} ${id}`),
      );
    }

    function drawAll(): void {
      drawFacts();
      drawViewing();
      drawHistory();
      drawDetails();
      void drawDiagram();
    }

    function pin(seq: number): void {
      pinned = seq;
      shown = live;
      drawAll();
    }

    backToLive.addEventListener('click', () => {
      pinned = undefined;
      shown = live;
      drawAll();
      viewing.focus();
    });

    function onView(view: ActorViewBody): void {
      if (view.revision === live.revision && view.timers.every((x, i) => x.pending === live.timers[i]?.pending)) return;
      live = view;
      if (pinned === undefined) {
        shown = view;
        drawAll();
      } else {
        drawViewing();
        drawHistory();
      }
    }

    function onState(state: LiveState): void {
      if (state.mode !== liveMode || state.mode === 'reconnecting') {
        liveMode = state.mode;
        liveDot.className = `live-dot live-${state.mode}`;
        liveLabel.textContent = liveText(state);
      }
      replaceChildren(
        liveProblem,
        state.mode === 'stopped' || state.mode === 'reconnecting' ? errorNotice(state.problem) : null,
      );
    }

    drawFacts();
    drawViewing();
    drawHistory();
    drawDetails();
    await drawDiagram();
    void followActor({ api, kind, id, signal, onView, onState });

    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, `${kind} `, h('code', {}, id)),
      h('p', { class: 'live-state', role: 'status' }, liveDot, liveLabel),
      liveProblem,
      facts,
      viewingBar,
      figure,
      h('h2', {}, 'History'),
      historySlot,
      h(
        'div',
        { class: 'split' },
        h('div', {}, h('h2', {}, 'Durable timers'), timersSlot),
        h('div', {}, h('h2', {}, 'Persisted snapshot'), snapshotSlot),
      ),
      h('p', {}, h('a', { href: '/console/inspector' }, 'All machines')),
    );
  },
};
