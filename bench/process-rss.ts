import { readFileSync } from 'node:fs';

/** Resident set size of a process (bytes), read from /proc; 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples the RSS of the given processes every 100 ms until stopped; `stop` answers each one's peak in bytes. */
export function sampleRss(pids: readonly number[]): { stop(): number[] } {
  const peaks = pids.map(rssOf);
  const sample = () =>
    pids.forEach((pid, i) => {
      peaks[i] = Math.max(peaks[i]!, rssOf(pid));
    });
  const timer = setInterval(sample, 100);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}
