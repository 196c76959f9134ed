import { cpus, loadavg, totalmem, freemem } from 'node:os';

/** The machine a run happened on. */
export interface MachineInfo {
  cpuModel: string;
  cpuCount: number;
  totalMemoryGb: number;
  freeMemoryGb: number;
  node: string;
  loadAverage: [number, number, number];
}

/** Describes this machine (CPU, memory, Node version, load average now). */
export function machineInfo(): MachineInfo {
  const c = cpus();
  const [l1, l5, l15] = loadavg();
  return {
    cpuModel: c[0]?.model ?? 'unknown',
    cpuCount: c.length,
    totalMemoryGb: totalmem() / 2 ** 30,
    freeMemoryGb: freemem() / 2 ** 30,
    node: process.version,
    loadAverage: [l1 ?? 0, l5 ?? 0, l15 ?? 0],
  };
}

/** Formats the load average for printing. */
export function formatLoad(l: readonly number[]): string {
  return l.map((x) => x.toFixed(2)).join(' / ');
}
