import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { ServiceError } from '../../errors/service-error.js';
import { forbiddenAddressReason, type ClassifyAddress } from './classify-address.js';
import { lookupAll, type OutboundLookup } from './guarded-lookup.js';

/** Which URLs an outbound call may reach. */
export interface OutboundUrlRules {
  /** OUTBOUND_ALLOW_INSECURE_URLS (development and tests): http and every address class allowed. */
  allowInsecure: boolean;
  /** http allowed without `allowInsecure` too (calendar feeds); https always is. @default false */
  allowHttp?: boolean;
  /** How addresses are judged. @default classifyAddress */
  classify?: ClassifyAddress;
}

/** Why a URL is refused, with a stable code (the `details[].code` of a configuration-time 400). */
export interface UrlRefusal {
  code: 'INVALID_URL' | 'HTTPS_REQUIRED' | 'CREDENTIALS_IN_URL' | 'FORBIDDEN_ADDRESS' | 'UNRESOLVABLE_HOST';
  /** What is wrong, naming the URL's own parts only (never anything fetched). */
  reason: string;
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Whether the text of a URL has an `@` in its authority. The URL parser drops an empty user name and password
 * (`https://:@host/` has username '' and password ''), so the raw text is read: scheme, any slashes or backslashes,
 * then the authority up to the first `/`, `\`, `?` or `#`. A relative reference without `//` has no authority.
 */
function rawAuthorityHasAt(raw: string): boolean {
  // What the parser ignores: leading C0 controls and spaces, and every tab and newline.
  const s = raw.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.exec(s);
  const rest = scheme ? s.slice(scheme[0].length) : s;
  if (!scheme && !/^[/\\]{2}/.test(rest)) return false;
  const authority = /^[/\\]*([^/\\?#]*)/.exec(rest)![1]!;
  return authority.includes('@');
}

/**
 * Checks a URL where a connection is about to be made, without DNS: absolute (or relative to `base`, a redirect's
 * Location), https (or http when the rules allow it), no user name or password (empty ones included), and an IP
 * literal of a public class (every form the URL parser accepts: `2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]` are
 * normalized to the address they mean). A name passes here; its addresses are checked by the guarded lookup.
 */
export function inspectOutboundUrl(
  raw: string,
  rules: OutboundUrlRules,
  base?: URL,
): { url: URL; refusal?: undefined } | { url?: undefined; refusal: UrlRefusal } {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return { refusal: { code: 'INVALID_URL', reason: 'not an absolute URL' } };
  }
  const httpAllowed = rules.allowInsecure || rules.allowHttp === true;
  if (url.protocol !== 'https:' && !(httpAllowed && url.protocol === 'http:'))
    return { refusal: { code: 'HTTPS_REQUIRED', reason: `${url.protocol} URLs are not allowed` } };
  if (url.username || url.password || rawAuthorityHasAt(raw))
    return { refusal: { code: 'CREDENTIALS_IN_URL', reason: 'the URL carries a user name or password' } };
  if (!rules.allowInsecure) {
    const host = bareHost(url);
    const reason = isIP(host) ? forbiddenAddressReason(host, rules.classify) : undefined;
    if (reason) return { refusal: { code: 'FORBIDDEN_ADDRESS', reason } };
  }
  return { url };
}

/** The configuration-time message of each refusal. */
function configMessage(r: UrlRefusal, httpAllowed: boolean): string {
  switch (r.code) {
    case 'INVALID_URL':
      return 'must be an absolute URL such as https://example.com/path';
    case 'HTTPS_REQUIRED':
      return httpAllowed ? 'must use https or http' : 'must use https';
    case 'CREDENTIALS_IN_URL':
      return 'must not carry a user name or password';
    case 'FORBIDDEN_ADDRESS':
      return `must reach a public address (${r.reason})`;
    case 'UNRESOLVABLE_HOST':
      return r.reason;
  }
}

/**
 * Checks an outbound URL where it is configured (a webhook's `url`, a calendar feed's `externalCalendar.url`):
 * inspectOutboundUrl's rules, and (unless `allowInsecure`) a name whose every address is public. Throws a 400
 * VALIDATION_ERROR on `field` whose detail code says what is wrong (INVALID_URL, HTTPS_REQUIRED, CREDENTIALS_IN_URL,
 * FORBIDDEN_ADDRESS, UNRESOLVABLE_HOST). Every connection checks again (createOutboundClient).
 */
export async function checkOutboundUrl(
  url: string,
  opts: OutboundUrlRules & { field: string; lookup?: OutboundLookup | undefined },
): Promise<void> {
  const fail = (r: UrlRefusal) => {
    const message = configMessage(r, opts.allowInsecure || opts.allowHttp === true);
    return new ServiceError('VALIDATION_ERROR', `${opts.field}: ${message}`, {
      field: opts.field,
      details: [{ field: opts.field, code: r.code, message }],
    });
  };
  const inspected = inspectOutboundUrl(url, opts);
  if (inspected.refusal) throw fail(inspected.refusal);
  if (opts.allowInsecure) return;
  const host = bareHost(inspected.url);
  if (isIP(host)) return;
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(opts.lookup ?? dnsLookup, host);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw fail({ code: 'UNRESOLVABLE_HOST', reason: `host ${host} does not resolve (${why})` });
  }
  if (addresses.length === 0) throw fail({ code: 'UNRESOLVABLE_HOST', reason: `host ${host} does not resolve` });
  for (const a of addresses) {
    const reason = forbiddenAddressReason(a.address, opts.classify);
    if (reason) throw fail({ code: 'FORBIDDEN_ADDRESS', reason: `${host} resolves to ${reason}` });
  }
}
