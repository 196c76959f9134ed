import type { ChangedRow, GraphChangesRead } from '../../persistence/graph-change-repository.js';
import { CELL, GraphColumnsError, type GraphColumnsKey, type GraphColumnsView } from './graph-columns.js';
import type { GraphWriterTable } from './graph-columns-writer.js';
import { createGraphRowColumns } from './read-graph-columns.js';

/** The changes of a graph between two versions, as readGraphChanges reads them. */
export type GraphChanges = Extract<GraphChangesRead, { status: 'changed' }>;

/**
 * The columns of `key`'s version made from the columns of an earlier version (`base`) and what changed between the two:
 * every record of the base whose id did not change copied as it is, each changed row written in its place in the
 * load's order (after the row PostgreSQL orders before it), the records of ids whose rows are gone left out. The
 * result is byte for byte the columns `readGraphColumns` reads at that version (the same values through the same
 * writer in the same order); throws GraphColumnsError when the changes do not fit the base (the caller reads the rows).
 */
export function applyGraphChanges(base: GraphColumnsView, changes: GraphChanges, key: GraphColumnsKey): Buffer {
  const out = createGraphRowColumns(key.organizationId);
  const merge = <R extends { id: string }>(table: GraphWriterTable, rows: ChangedRow<R>[], write: (row: R) => void) => {
    const changed = new Set(changes.ids[table]);
    // Each changed row by the id before it (one row follows any id): chains of new rows follow one base record.
    const next = new Map<string | null, R>();
    for (const x of rows) {
      if (next.has(x.after)) throw new GraphColumnsError(`changes: two ${table} rows after ${x.after}`);
      next.set(x.after, x.row);
    }
    let written = 0;
    const chain = (id: string | null) => {
      for (let row = next.get(id); row !== undefined; row = next.get(row.id)) {
        write(row);
        written++;
      }
    };
    chain(null);
    const ids = base.cells(table, 'id');
    const n = base.counts[table];
    for (let r = 0; r < n; r++) {
      const id = ids.kinds[r] === CELL.STRING ? base.str(ids.values[r]!) : (base.value(table, 'id', r) as string);
      if (changed.has(id)) continue;
      out.copy(table, base, r);
      chain(id);
    }
    if (written !== rows.length)
      throw new GraphColumnsError(`changes: ${rows.length - written} ${table} rows placed after no record`);
  };
  merge('providers', changes.providers, out.provider);
  merge('services', changes.services, out.service);
  merge('schedules', changes.schedules, out.schedule);
  return out.finish(key);
}
