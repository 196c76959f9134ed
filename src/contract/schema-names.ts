import { z } from 'zod';
import * as analytics from './schemas/analytics.js';
import * as apiKey from './schemas/api-key.js';
import * as auditEvent from './schemas/audit-event.js';
import * as booking from './schemas/booking.js';
import * as calendarConnection from './schemas/calendar-connection.js';
import * as caller from './schemas/caller.js';
import * as care from './schemas/care.js';
import * as discovery from './schemas/discovery.js';
import * as event from './schemas/event.js';
import * as hold from './schemas/hold.js';
import * as inspector from './schemas/inspector.js';
import * as listEnvelope from './schemas/list-envelope.js';
import * as organization from './schemas/organization.js';
import * as providerImport from './schemas/provider-import.js';
import * as provider from './schemas/provider.js';
import * as rankingPolicy from './schemas/ranking-policy.js';
import * as resolution from './schemas/resolution.js';
import * as service from './schemas/service.js';
import * as webhook from './schemas/webhook.js';

/** The schema modules, by file name: their exported zod objects are the named messages of the typed API. */
const SCHEMA_MODULES: Record<string, Record<string, unknown>> = {
  analytics: analytics,
  'api-key': apiKey,
  'audit-event': auditEvent,
  booking: booking,
  'calendar-connection': calendarConnection,
  caller: caller,
  care: care,
  discovery: discovery,
  event: event,
  hold: hold,
  inspector: inspector,
  'list-envelope': listEnvelope,
  organization: organization,
  'provider-import': providerImport,
  provider: provider,
  'ranking-policy': rankingPolicy,
  resolution: resolution,
  service: service,
  webhook: webhook,
};

/** The name of every exported schema (`Resolution`, `BookingV2`): the message that carries it in the typed API. */
export const SCHEMA_NAMES: ReadonlyMap<z.ZodType, string> = (() => {
  const names = new Map<z.ZodType, string>();
  for (const file of Object.keys(SCHEMA_MODULES).sort()) {
    for (const [name, value] of Object.entries(SCHEMA_MODULES[file]!)) {
      if (value instanceof z.ZodType && !names.has(value) && /^[A-Z][A-Za-z0-9]*$/.test(name)) names.set(value, name);
    }
  }
  return names;
})();
