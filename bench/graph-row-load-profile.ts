import { CreateProviderBody } from '../src/contract/schemas/provider.js';
import { newProviderState } from '../src/application/provider-changes.js';
import { createGraphRowColumns } from '../src/application/resolution/read-graph-columns.js';
import { openGraphColumns } from '../src/application/resolution/graph-columns.js';
import { encodeGraphColumns } from '../src/application/resolution/graph-columns-writer.js';
import { assembleColumnGraph } from '../src/application/resolution/column-org-graph.js';
import { applyGraphChanges } from '../src/application/resolution/apply-graph-changes.js';
import type {
  GraphRowSink,
  ProviderGraphRow,
  ScheduleGraphRow,
  ServiceGraphRow,
} from '../src/persistence/organization-graph-rows.js';
import { assembleOrgGraph, createRecordSink } from '../test/helpers/record-org-graph.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';
import { generateProviders } from './provider-mix.js';

/**
 * A graph load from its rows alone, without PostgreSQL or HTTP (`node --expose-gc --import tsx
 * bench/graph-row-load-profile.ts [providers]`, GRAPH_ROW_MODE=columns|records): provider-mix.ts' providers (one
 * service and one weekly schedule each) as the rows the driver gives (each batch of 10,000 parsed from JSON text just
 * before it is handed over, as the driver parses `doc`), written into columns and indexed (`columns`: the service now)
 * or made into records, indexed by maps and encoded as the snapshot (`records`: the service before); `changes` as
 * `columns`, then the next version made from those columns and one provider's changed row (applyGraphChanges). CPU per step
 * (each step closed by a forced GC, counted in it: a step pays for its own garbage), heap and RSS.
 */
const size = Number(process.argv[2] ?? 100_000);
const mode = process.env.GRAPH_ROW_MODE ?? 'columns';
const BATCH = 10_000;
const key = { organizationId: 'org_profile_0000000000000000', graphVersion: 1 };
const nowMs = Date.parse('2026-11-27T00:00:00Z');
const generated = generateProviders(createSeededRandom(20_260_302), size, nowMs);
const docTexts = generated.map((g) => JSON.stringify(newProviderState(CreateProviderBody.parse(g.row)).doc));
const daysTexts = generated.map((g) => JSON.stringify(g.days));
const idOf = (prefix: string, i: number) => `${prefix}_${String(i).padStart(8, '0')}0000000000000000`;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

let cpu = process.cpuUsage();
let parseMs = 0;
const step = (name: string) => {
  gc();
  const d = process.cpuUsage(cpu);
  const m = process.memoryUsage();
  console.log(
    `  ${name.padEnd(18)} CPU ${((d.user + d.system) / 1000 - parseMs).toFixed(0).padStart(5)} ms | heap ` +
      `${(m.heapUsed / 1048576).toFixed(0)} MB, RSS ${(m.rss / 1048576).toFixed(0)} MB`,
  );
  parseMs = 0;
  cpu = process.cpuUsage();
};
/** Hands `make(i)` for every i to `sink` in batches, the making of each batch (the driver's parse) not counted. */
const feed = <R>(count: number, make: (i: number) => R, sink: (rows: R[]) => void) => {
  for (let b = 0; b < count; b += BATCH) {
    const t = process.cpuUsage();
    const rows: R[] = [];
    for (let i = b; i < Math.min(count, b + BATCH); i++) rows.push(make(i));
    const d = process.cpuUsage(t);
    parseMs += (d.user + d.system) / 1000;
    sink(rows);
  }
};
console.log(`${size} providers, ${mode}`);
step('setup');
// Instants as PostgreSQL writes them in a JSON row.
const jsonInstant = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');
const at = jsonInstant(nowMs);
const sink: GraphRowSink =
  mode === 'records' ? createRecordSink(key.organizationId) : createGraphRowColumns(key.organizationId);
feed<ProviderGraphRow>(
  size,
  (i) => ({
    id: idOf('prv', i),
    external_id: `ext-${i}`,
    status: 'active',
    searchable: true,
    profile_version: 1,
    created_at: jsonInstant(nowMs + (i % 1000)),
    updated_at: at,
    doc: JSON.parse(docTexts[i]!),
  }),
  (rows) => sink.providers(rows),
);
step('providers');
feed<ServiceGraphRow>(
  size,
  (i) => ({
    id: idOf('svc', i),
    provider_id: idOf('prv', i),
    slug: 'intake-session',
    doc: JSON.parse(`{"title":"Intake Session","duration":50,"modality":"${generated[i]!.serviceModality}"}`),
  }),
  (rows) => sink.services(rows),
);
step('services');
feed<ScheduleGraphRow>(
  size,
  (k) => {
    const i = size - 1 - k;
    return {
      id: idOf('cal', i),
      provider_id: idOf('prv', i),
      title: '"Office hours"',
      timezone: JSON.stringify(generated[i]!.timezone),
      days: daysTexts[i]!,
      overrides: '[]',
      external_calendar: null,
    };
  },
  (rows) => sink.schedules(rows),
);
step('schedules');
const origin = { source: 'rows' as const, snapshotStored: Promise.resolve(false) };
if (mode === 'records') {
  const parts = (sink as ReturnType<typeof createRecordSink>).parts();
  const graph = assembleOrgGraph(key.organizationId, 1, parts, Date.now(), origin);
  step('index');
  const columns = await encodeGraphColumns(key, parts);
  step('encode (snapshot)');
  console.log(`  ${graph.providerCount} providers; columns ${columns.length} bytes`);
} else {
  const columns = (sink as ReturnType<typeof createGraphRowColumns>).finish(key);
  step('finish');
  const graph = assembleColumnGraph(key.organizationId, 1, openGraphColumns(columns, key), Date.now(), origin);
  step('index');
  console.log(`  ${graph.providerCount} providers; columns ${columns.length} bytes`);
  if (mode === 'changes') {
    // One provider edited: the next version made from these columns and its row (what a process holding the graph does).
    const next = { organizationId: key.organizationId, graphVersion: 2 };
    const edited = idOf('prv', 5);
    const change = () =>
      applyGraphChanges(
        graph.columns!,
        {
          status: 'changed',
          graphVersion: 2,
          ids: { providers: [edited], services: [], schedules: [] },
          providers: [
            {
              row: {
                id: edited,
                external_id: 'ext-5',
                status: 'inactive',
                searchable: true,
                profile_version: 2,
                created_at: at,
                updated_at: at,
                doc: JSON.parse(docTexts[5]!),
              },
              after: idOf('prv', 4),
            },
          ],
          services: [],
          schedules: [],
        },
        next,
      );
    // Runs before the measured one (GRAPH_APPLY_RUNS, default 0): the copy alone, CPU without collections.
    for (let k = 0; k < Number(process.env.GRAPH_APPLY_RUNS ?? 0); k++) {
      const t = process.cpuUsage();
      await change();
      const d = process.cpuUsage(t);
      console.log(`  apply one change, run ${k + 1}: CPU ${((d.user + d.system) / 1000).toFixed(0)} ms`);
    }
    gc();
    cpu = process.cpuUsage();
    const made = await change();
    step('apply one change');
    const again = assembleColumnGraph(key.organizationId, 2, openGraphColumns(made, next), Date.now(), origin);
    step('index');
    console.log(`  ${again.providerCount} providers; columns ${made.length} bytes`);
  }
}
