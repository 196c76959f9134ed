import type { ClassifyAddress } from '../outbound/classify-address.js';
import { checkOutboundUrl } from '../outbound/check-outbound-url.js';
import type { OutboundLookup } from '../outbound/guarded-lookup.js';
import { createOutboundClient, outboundUserAgent, type OutboundClient } from '../outbound/outbound-client.js';

/** The largest feed read, in bytes; a larger one fails (`too_large`) without being read further. */
export const FEED_MAX_BYTES = 5 * 1024 * 1024;

/** Redirects a feed fetch follows, each hop checked by the guard like the first. */
export const FEED_MAX_REDIRECTS = 3;

/** The media types a feed may be served as; any other (html, json, text/plain...) fails before the body is read. */
export const FEED_CONTENT_TYPES: readonly string[] = ['text/calendar', 'application/ics', 'text/x-vcalendar'];

/** Where a feed client may connect, and how names resolve. */
export interface FeedUrlOptions {
  /** OUTBOUND_ALLOW_INSECURE_URLS: loopback, private and other non-public addresses allowed. */
  allowInsecure: boolean;
  lookup?: OutboundLookup | undefined;
  /** How addresses are judged (default classifyAddress); a test stands one loopback address in for a public host. */
  classify?: ClassifyAddress;
}

/**
 * The guarded client calendar feeds are fetched with: https or http (a feed carries no secret of ours; the guard is
 * about where it connects), only public addresses unless `allowInsecure`, no idle connections kept.
 */
export function createFeedClient(opts: FeedUrlOptions): OutboundClient {
  return createOutboundClient({
    allowInsecure: opts.allowInsecure,
    allowHttp: true,
    lookup: opts.lookup,
    ...(opts.classify ? { classify: opts.classify } : {}),
    userAgent: outboundUserAgent('calendar-feeds'),
  });
}

/**
 * Checks a feed URL where a calendar connection is configured, with the rules createFeedClient connects by; throws
 * a 400 VALIDATION_ERROR on `externalCalendar.url` (detail codes of checkOutboundUrl).
 */
export function checkFeedUrl(url: string, opts: FeedUrlOptions): Promise<void> {
  return checkOutboundUrl(url, {
    field: 'externalCalendar.url',
    allowInsecure: opts.allowInsecure,
    allowHttp: true,
    lookup: opts.lookup,
    ...(opts.classify ? { classify: opts.classify } : {}),
  });
}
