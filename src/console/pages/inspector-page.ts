import type { z } from 'zod';
import { machineDot } from '../../application/inspector/machine-dot.js';
import type { Machine, MachineCatalogue } from '../../contract/schemas/inspector.js';
import type { Page } from '../page.js';
import { dataTable } from '../ui/data-table.js';
import { dotDiagram } from '../ui/dot-diagram.js';
import { h } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { formField, selectOf } from '../ui/form-field.js';

/** A machine of the catalogue as GET /api/v2/inspector/machines answers it. */
export type MachineBody = z.infer<typeof Machine>;

type Transition = MachineBody['transitions'][number];

/** The actor kinds, which are also the machines' names. */
export const ACTOR_KINDS = ['resolution', 'hold', 'booking', 'waitlist_entry'] as const;

/** A state node id without its machine's prefix (`booking.confirmed` → `confirmed`). */
export const stateKey = (machine: string, id: string): string =>
  id.startsWith(`${machine}.`) ? id.slice(machine.length + 1) : id;

/** The address of an actor's inspector page. */
export const actorPath = (kind: string, id: string): string =>
  `/console/inspector/${encodeURIComponent(kind)}/${encodeURIComponent(id)}`;

/** A machine's drawing in a figure; a drawing that fails shows the error where it would be. */
export async function machineFigure(dot: string, label: string): Promise<HTMLElement> {
  try {
    // Focusable: on a phone the drawing scrolls sideways inside the figure, and keys must be able to scroll it.
    return h(
      'figure',
      { class: 'diagram', tabindex: 0, 'aria-label': 'Machine diagram' },
      await dotDiagram(dot, label),
    );
  } catch (err) {
    return h('figure', { class: 'diagram' }, errorNotice(err));
  }
}

/** A table that may scroll sideways on a phone and holds nothing focusable: made focusable, so keys can scroll it. */
function scrollableByKeyboard(table: HTMLElement, label: string): HTMLElement {
  table.setAttribute('tabindex', '0');
  table.setAttribute('role', 'region');
  table.setAttribute('aria-label', label);
  return table;
}

function stateList(m: MachineBody): HTMLElement {
  return h(
    'ul',
    { class: 'inline-list' },
    m.states.map((s) =>
      h(
        'li',
        {},
        h('code', {}, s.key),
        s.key === m.initial ? ' (initial)' : null,
        s.type === 'final' ? ' (final)' : null,
      ),
    ),
  );
}

async function machineSection(m: MachineBody): Promise<HTMLElement> {
  const headingId = `machine-${m.id}`;
  const key = (id: string) => stateKey(m.id, id);
  const states = m.states.map((s) => s.key).join(', ');
  return h(
    'section',
    { class: 'machine', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, `${m.id} machine `, h('span', { class: 'muted small' }, `version ${m.version}`)),
    await machineFigure(machineDot(m), `State diagram of the ${m.id} machine, version ${m.version}: states ${states}.`),
    h(
      'dl',
      { class: 'facts' },
      h('div', {}, h('dt', {}, 'Version'), h('dd', {}, String(m.version))),
      h('div', {}, h('dt', {}, 'Initial state'), h('dd', {}, m.initial ?? '—')),
      h('div', {}, h('dt', {}, 'States'), h('dd', {}, String(m.states.length))),
      h('div', {}, h('dt', {}, 'Transitions'), h('dd', {}, String(m.transitions.length))),
    ),
    h('h3', {}, 'States'),
    stateList(m),
    h('h3', {}, 'Events'),
    h(
      'ul',
      { class: 'inline-list' },
      m.events.map((e) => h('li', {}, h('code', {}, e))),
    ),
    h('h3', {}, 'Transitions'),
    scrollableByKeyboard(
      dataTable<Transition>(
        `Transitions of the ${m.id} machine, in the order they are tried`,
        [
          { header: 'Source', cell: (t) => h('code', {}, key(t.source)) },
          { header: 'Event', cell: (t) => h('code', {}, t.event) },
          { header: 'Guard', cell: (t) => (t.guard ? h('code', {}, t.guard) : '—') },
          {
            header: 'Target',
            cell: (t) =>
              t.target
                ? t.target.split(',').map((x) => h('code', {}, key(x)))
                : h('span', { class: 'muted' }, 'stays (context only)'),
          },
          { header: 'Actions', cell: (t) => (t.actions.length > 0 ? t.actions.join(', ') : '—') },
        ],
        m.transitions,
      ),
      `Transitions of the ${m.id} machine`,
    ),
  );
}

/** A form to open one actor by kind and id. */
function openActorForm(navigate: (path: string) => void, hasOrganization: boolean): HTMLElement {
  const kind = selectOf(
    'kind',
    ACTOR_KINDS.map((k) => [k, k]),
    'booking',
  );
  const id = h('input', {
    type: 'text',
    name: 'id',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    class: 'mono',
  });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Open an actor' },
    formField('Actor kind', kind),
    formField('Actor id', id, 'res_…, hld_… or bkg_…'),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open')),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const value = id.value.trim();
    if (value) navigate(actorPath(kind.value, value));
  });
  return h(
    'div',
    {},
    form,
    hasOrganization
      ? null
      : h('p', { class: 'muted small' }, 'Actors belong to an organization: choose one in the header first.'),
  );
}

/** The machine catalogue: each machine drawn from its definition, with its states, events and transitions. */
export const inspectorPage: Page = {
  path: '/console/inspector',
  title: 'Inspector',
  nav: 'Inspector',
  async render({ api, caller, signal, navigate }) {
    const catalogue = await api.get<z.infer<typeof MachineCatalogue>>('/api/v2/inspector/machines', undefined, signal);
    const sections = await Promise.all(catalogue.machines.map(machineSection));
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Inspector'),
      h(
        'p',
        {},
        'The machines the service runs, drawn from their definitions. Open a resolution, hold or booking to follow it live.',
      ),
      h('h2', {}, 'Open an actor'),
      openActorForm(navigate, caller.organizationId !== null),
      sections,
    );
  },
};
