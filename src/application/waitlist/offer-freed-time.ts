import { waitlistOfferTtlSeconds } from '../../persistence/organization-repository.js';
import { waitingEntriesForProvider } from '../../persistence/waitlist-repository.js';
import { offerToEntry, type FreedTime, type OfferToEntryDeps } from './offer-to-entry.js';

/** What offerFreedTime uses: offerToEntry's dependencies (the entries and the organization's TTL are read on `db`). */
export type OfferFreedTimeDeps = OfferToEntryDeps;

const DAY_MS = 86_400_000;
/** How many waiting entries one piece of freed time is tried against, oldest first. */
const ENTRIES_TRIED = 200;

/**
 * Offers freed time of a provider to the waitlist (CONTRACT part 8): the organization's waiting entries whose session
 * type the provider offers are tried oldest first; each is offered the best free slot of the freed time that its
 * constraints and preferences admit. Time freed by one claim (a day or less) is one slot's worth: it goes to the first
 * entry that admits it and the search stops (also when that slot was taken meanwhile). Wider time (a schedule
 * widened, a provider changed) goes on to the next entries, each offered another free slot. Answers the offers made.
 */
export async function offerFreedTime(deps: OfferFreedTimeDeps, freed: FreedTime): Promise<number> {
  const entries = await waitingEntriesForProvider(deps.db, {
    organizationId: freed.organizationId,
    providerId: freed.providerId,
    limit: ENTRIES_TRIED,
  });
  if (entries.length === 0) return 0;
  const ttlSeconds = await waitlistOfferTtlSeconds(deps.db, freed.organizationId);
  const oneSlot = freed.to.getTime() - freed.from.getTime() <= DAY_MS;
  let offers = 0;
  for (const entry of entries) {
    const attempt = await offerToEntry(deps, entry.id, freed, ttlSeconds);
    if (attempt.outcome === 'offered') offers++;
    if (oneSlot && attempt.outcome !== 'not_admitted') break;
  }
  return offers;
}
