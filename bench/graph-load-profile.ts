import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync, constants as zlibConstants } from 'node:zlib';
import { CreateProviderBody } from '../src/contract/schemas/provider.js';
import { newProviderState } from '../src/application/provider-changes.js';
import { toProviderView } from '../src/persistence/provider-repository.js';
import { toDomainProvider } from '../src/application/resolution/org-graph.js';
import { assembleOrgGraph } from '../test/helpers/record-org-graph.js';
import { decodeGraphColumns, openGraphColumns } from '../src/application/resolution/graph-columns.js';
import { encodeGraphColumns } from '../src/application/resolution/graph-columns-writer.js';
import { assembleColumnGraph } from '../src/application/resolution/column-org-graph.js';
import { gunzipWhole } from '../src/application/resolution/graph-snapshots.js';
import type { CalendarConnection, ProviderService } from '../src/domain/provider.js';
import { screenRequest } from '../src/domain/resolution/compute-resolution.js';
import { generateProviders } from './provider-mix.js';
import { CONSTRAINT_MIXES } from './resolution-requests.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';

/**
 * The graph load alone, without PostgreSQL or HTTP (`npx tsx bench/graph-load-profile.ts [providers]`): a synthetic
 * organization of provider-mix.ts' providers (one service and one weekly schedule each) encoded as a stored snapshot,
 * then, in a fresh child process, gunzipped, decoded and indexed as a first resolution does, and screened once:
 * CPU per step and the process's RSS and heap after each (peak RSS sampled). Run it with `--cpu-prof` in
 * GRAPH_PROFILE_NODE_ARGS to see where a step's CPU goes. The graph is read as the service reads it (columns opened,
 * indexed from the cells, matched providers built); GRAPH_PROFILE_RECORDS=1 decodes every record and indexes them
 * (assembleOrgGraph), as the service did before.
 */
const size = Number(process.argv[2] ?? 100_000);
const file = `/tmp/graph-load-profile-${size}.gz`;
const key = { organizationId: 'org_profile', graphVersion: 1 };
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

if (process.env.GRAPH_PROFILE_CHILD !== '1') {
  const nowMs = Date.parse('2026-11-27T00:00:00Z');
  const generated = generateProviders(createSeededRandom(20_260_302), size, nowMs);
  const at = new Date(nowMs);
  const providers = generated.map((g, i) => {
    const s = newProviderState(CreateProviderBody.parse(g.row));
    return toDomainProvider(
      toProviderView({
        id: `prv_${String(i).padStart(8, '0')}`,
        organization_id: key.organizationId,
        external_id: s.externalId,
        status: s.status,
        searchable: s.searchable,
        doc: s.doc,
        profile_version: 1,
        created_at: at,
        updated_at: at,
      }),
    );
  });
  const services: ProviderService[] = providers.map((p, i) => ({
    id: `svc_${String(i).padStart(8, '0')}`,
    organizationId: key.organizationId,
    providerId: p.id,
    slug: 'intake-session',
    title: 'Intake Session',
    duration: 50,
    price: undefined,
    currency: undefined,
    modality: generated[i]!.serviceModality,
    slotIntervalMinutes: undefined,
    minimumNoticeMinutes: undefined,
    bufferBeforeMinutes: undefined,
    bufferAfterMinutes: undefined,
  }));
  const schedules: CalendarConnection[] = providers
    .map((p, i) => ({
      id: `cal_${String(i).padStart(8, '0')}`,
      organizationId: key.organizationId,
      providerId: p.id,
      title: 'Office hours',
      timezone: generated[i]!.timezone,
      days: generated[i]!.days as CalendarConnection['days'],
      overrides: [],
      externalCalendar: undefined,
      status: 'active' as const,
    }))
    .reverse();
  const columns = await encodeGraphColumns(key, { providers, services, schedules, sharedBytes: 0 });
  const body = gzipSync(columns, { level: zlibConstants.Z_BEST_SPEED });
  writeFileSync(file, body);
  console.log(`${size} providers: columns ${mb(columns.length)}, gzipped ${mb(body.length)} -> ${file}`);
  const extra = (process.env.GRAPH_PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = fork(process.argv[1]!, [String(size)], {
    env: { ...process.env, GRAPH_PROFILE_CHILD: '1' },
    execArgv: [...process.execArgv, ...extra],
  });
  await new Promise((resolve) => child.on('exit', resolve));
} else {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const rss0 = process.memoryUsage.rss();
  let cpu = process.cpuUsage();
  const step = (name: string) => {
    const d = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    peak = Math.max(peak, process.memoryUsage.rss());
    const m = process.memoryUsage();
    console.log(
      `  ${name.padEnd(10)} CPU ${((d.user + d.system) / 1000).toFixed(0).padStart(5)} ms | RSS ${mb(m.rss)} ` +
        `(peak ${mb(peak)}) heap ${mb(m.heapUsed)} external+buffers ${mb(m.external + m.arrayBuffers)}`,
    );
  };
  let stored: Buffer | undefined = readFileSync(file);
  step('read');
  let columns: Buffer | undefined = await gunzipWhole(stored);
  stored = undefined;
  step('gunzip');
  const origin = { source: 'snapshot' as const, snapshotStored: Promise.resolve(true) };
  const records = process.env.GRAPH_PROFILE_RECORDS === '1';
  const view = records ? undefined : openGraphColumns(columns, key);
  const parts = records ? decodeGraphColumns(columns, key) : undefined;
  columns = undefined;
  step(records ? 'decode' : 'open');
  const graph = records
    ? assembleOrgGraph(key.organizationId, key.graphVersion, parts!, Date.now(), origin)
    : assembleColumnGraph(key.organizationId, key.graphVersion, view!, Date.now(), origin);
  step('assemble');
  const rnd = createSeededRandom(7);
  const offering = graph.offeringOf('intake-session');
  step('offering');
  const window = { from: '2026-11-30', to: '2026-12-13' };
  let matched = 0;
  const servicesOfSlug = graph.servicesBySlug.get('intake-session')!;
  for (let i = 0; i < 10; i++) {
    const screen = screenRequest({
      index: graph.eligibilityIndex,
      offering,
      constraints: Object.fromEntries(
        Object.entries(CONSTRAINT_MIXES.mix10.constraints(rnd)).map(([k, v]) => [k, (v as { anyOf: string[] }).anyOf]),
      ),
      now: new Date('2026-11-27T12:00:00Z'),
      window,
    }).screen;
    matched += screen.matched.length;
    // What a resolution reads of each matched provider: its id, object, service and schedule.
    for (const p of screen.matched) {
      const id = graph.providerIdAt(p);
      if (graph.providerAt(p).id !== id || !servicesOfSlug.get(id) || !graph.schedulesByProvider.get(id))
        throw new Error(`provider ${p} not found`);
    }
    if (i === 0) step('screen 1');
  }
  step('screen x9');
  (globalThis as { gc?: () => void }).gc?.();
  step('gc');
  clearInterval(timer);
  console.log(
    `  ${graph.providerCount} providers, ~${(matched / 10).toFixed(0)} matched per screen; RSS before ${mb(rss0)}, ` +
      `peak ${mb(peak)}; approxBytes ${mb(graph.approxBytes)}`,
  );
}
