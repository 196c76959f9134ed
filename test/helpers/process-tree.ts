import { readdirSync, readFileSync } from 'node:fs';

/** The pids whose parent is `ppid` (from /proc). */
export function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name in parentheses, which may itself contain spaces.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(name));
    } catch {
      // The process ended while the table was read.
    }
  }
  return out;
}
