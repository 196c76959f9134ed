import { existsSync, readFileSync } from 'node:fs';

/** Answers whether a process id is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a server left running by an earlier run of this service that died without cleaning up (kill -9):
 * the pid comes from the pid file inside this service's own data directory, so it is a server this
 * service started, never a foreign one. Sends `signal`, waits up to 10 s, then SIGKILL.
 */
export async function stopStaleProcess(pidFile: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]?.trim());
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid || !alive(pid)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + 10_000;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}
