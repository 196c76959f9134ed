import type { Page } from '../page.js';
import { overviewPage } from './overview-page.js';
import { resolutionsPage } from './resolutions-page.js';
import { resolutionPage } from './resolution-page.js';
import { bookingsPage } from './bookings-page.js';
import { bookingPage } from './booking-page.js';
import { auditPage } from './audit-page.js';
import { analyticsPage } from './analytics-page.js';
import { networkAdequacyPage } from './network-adequacy-page.js';
import { manualReviewPage } from './manual-review-page.js';
import { waitlistPage } from './waitlist-page.js';
import { apiKeysPage } from './api-keys-page.js';
import { inspectorPage } from './inspector-page.js';
import { actorInspectorPage } from './actor-inspector-page.js';
import { webhooksPage } from './webhooks-page.js';
import { webhookDeliveryPage } from './webhook-delivery-page.js';
import { eventsPage } from './events-page.js';

/** Every console page, in navigation order. Paths are matched in this order too. */
export const ALL_PAGES: Page[] = [
  overviewPage,
  resolutionsPage,
  resolutionPage,
  bookingsPage,
  bookingPage,
  manualReviewPage,
  waitlistPage,
  auditPage,
  analyticsPage,
  networkAdequacyPage,
  inspectorPage,
  actorInspectorPage,
  webhooksPage,
  webhookDeliveryPage,
  eventsPage,
  apiKeysPage,
];
