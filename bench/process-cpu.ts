import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Kernel clock ticks per second (the unit of the CPU times in /proc/<pid>/stat). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields of /proc/<pid>/stat the bench reads; undefined when the process is gone. */
function statOf(pid: number): { ppid: number; ticks: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields that follow start after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
  const ticks = Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]);
  return { ppid: Number(rest[1]), ticks };
}

/** Every live process id with its parent, read from /proc. */
function parentsOfAll(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = statOf(Number(name));
    if (s) out.set(Number(name), s.ppid);
  }
  return out;
}

/**
 * CPU time (ms, user + system) used so far by process `pid` and all its descendants: each live process's own
 * time plus that of its children already reaped (cutime/cstime), so backends that came and went are counted too.
 * Differences of two readings give the CPU a process tree spent in between. 0 when `pid` is gone.
 */
export function processTreeCpuMs(pid: number): number {
  const parents = parentsOfAll();
  const tree = new Set([pid]);
  // Parents are found before their children in few passes; the tree is shallow (postmaster -> backends).
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const p of tree) ticks += statOf(p)?.ticks ?? 0;
  return (ticks / TICKS_PER_SECOND) * 1000;
}

/** CPU time (ms, user + system) used so far by process `pid` alone (its threads, not its children). 0 when it is gone. */
export function processCpuMs(pid: number): number {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) / TICKS_PER_SECOND) * 1000;
}

/** CPU time (ms, user + system) this process (the load generator) used so far. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
