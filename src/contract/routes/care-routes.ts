import { listOf } from '../schemas/list-envelope.js';
import {
  ContinuityRecord, CreateContinuityBody, CreateWaitlistEntryBody, ListContinuityQuery, ListManualReviewQuery, ListWaitlistQuery, ManualReviewEntry,
  ManualReviewPath, WaitlistEntry, WaitlistEntryPath,
} from '../schemas/care.js';
import type { RouteSpec } from '../route.js';

/** Continuity, waitlist and manual-review routes (SPEC 4.7, CONTRACT part 7). */
export const careRoutes: RouteSpec[] = [
  { method: 'POST', path: '/api/v2/continuity', service: 'CareService', rpc: 'CreateContinuity', tag: 'continuity', summary: 'Record a client-provider relationship (PROVIDER_CONTINUITY ranking boost for resolutions with the same preferences.clientRef). Upsert on (clientRef, providerId): a repeat refreshes lastSeenAt and answers the same id. Advances the provider graph version when something changed.', body: CreateContinuityBody, response: ContinuityRecord, errors: ['PROVIDER_NOT_FOUND'] },
  { method: 'GET', path: '/api/v2/continuity', service: 'CareService', rpc: 'ListContinuity', tag: 'continuity', summary: 'List the continuity records of one clientRef.', query: ListContinuityQuery, response: listOf(ContinuityRecord) },
  { method: 'POST', path: '/api/v2/waitlist', service: 'CareService', rpc: 'CreateWaitlistEntry', tag: 'waitlist', summary: 'Put a customer on the waitlist of a service (typically after a zero-result resolution).', body: CreateWaitlistEntryBody, response: WaitlistEntry, errors: ['SERVICE_NOT_FOUND', 'RESOLUTION_NOT_FOUND'] },
  { method: 'GET', path: '/api/v2/waitlist', service: 'CareService', rpc: 'ListWaitlistEntries', tag: 'waitlist', summary: 'List waitlist entries, oldest first, optionally by status.', query: ListWaitlistQuery, response: listOf(WaitlistEntry) },
  { method: 'DELETE', path: '/api/v2/waitlist/:id', service: 'CareService', rpc: 'CancelWaitlistEntry', tag: 'waitlist', summary: 'Cancel a waitlist entry: status `cancelled`; answers the entry. Cancelling again answers the same entry.', params: WaitlistEntryPath, response: WaitlistEntry, errors: ['WAITLIST_ENTRY_NOT_FOUND'] },
  { method: 'GET', path: '/api/v2/manual-review', service: 'CareService', rpc: 'ListManualReview', tag: 'manual-review', summary: 'Providers whose required data was unknown to a resolution, by provider id; default status `open`.', query: ListManualReviewQuery, response: listOf(ManualReviewEntry) },
  { method: 'POST', path: '/api/v2/manual-review/:providerId/resolve', service: 'CareService', rpc: 'ResolveManualReview', tag: 'manual-review', summary: 'Mark a provider\'s review entry resolved; answers the entry. It reopens when a later resolution finds the provider unknown again. No entry: 404 PROVIDER_NOT_FOUND.', params: ManualReviewPath, response: ManualReviewEntry, errors: ['PROVIDER_NOT_FOUND'] },
];
