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
import { providersPage } from './providers-page.js';
import { newProviderPage } from './new-provider-page.js';
import { providerPage } from './provider-page.js';
import { servicesPage } from './services-page.js';
import { newServicePage } from './new-service-page.js';
import { servicePage } from './service-page.js';
import { schedulesPage } from './schedules-page.js';
import { newSchedulePage } from './new-schedule-page.js';
import { schedulePage } from './schedule-page.js';

/** Every console page, in navigation order. Paths are matched in this order too (`…/new` before `…/:id`). */
export const ALL_PAGES: Page[] = [
  overviewPage,
  providersPage,
  newProviderPage,
  providerPage,
  servicesPage,
  newServicePage,
  servicePage,
  schedulesPage,
  newSchedulePage,
  schedulePage,
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
