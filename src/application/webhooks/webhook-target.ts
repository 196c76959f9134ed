import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { ServiceError } from '../../errors/service-error.js';

/** A `dns.lookup`-compatible function (node's LookupFunction); tests inject one to steer names to addresses. */
export type WebhookLookup = LookupFunction;

/** What kind of address an IP is; only `public` may receive webhooks unless insecure URLs are allowed. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unique_local'
  | 'shared_cgnat'
  | 'unspecified'
  | 'multicast'
  | 'reserved';

/** How long resolving a webhook host may take before the URL is refused. */
const LOOKUP_TIMEOUT_MS = 5_000;

/** IPv4 blocks that never receive webhooks: [first address as uint32, prefix length, class]. */
const IPV4_BLOCKS: [number, number, AddressClass][] = [
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'shared_cgnat'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link_local'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'reserved'],
  [v4('192.0.2.0'), 24, 'reserved'],
  [v4('192.88.99.0'), 24, 'reserved'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'reserved'],
  [v4('198.51.100.0'), 24, 'reserved'],
  [v4('203.0.113.0'), 24, 'reserved'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('240.0.0.0'), 4, 'reserved'],
];

/** A dotted IPv4 address as an unsigned 32-bit number. */
function v4(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** Classifies a dotted IPv4 address. */
function classifyV4(address: string): AddressClass {
  const n = v4(address);
  for (const [base, bits, cls] of IPV4_BLOCKS) {
    const size = 2 ** (32 - bits);
    if (n >= base && n < base + size) return cls;
  }
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped, an embedded dotted IPv4 tail converted). */
function v6Groups(address: string): number[] {
  let a = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const n = v4(dotted[1]!);
    a = a.slice(0, -dotted[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = a.split('::') as [string, string | undefined];
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** The IPv4 address carried in two 16-bit groups. */
function embeddedV4(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** Classifies an IPv6 address; IPv4-mapped, NAT64 and 6to4 forms are judged by the IPv4 address they carry. */
function classifyV6(address: string): AddressClass {
  const g = v6Groups(address);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return classifyV4(embeddedV4(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return classifyV4(embeddedV4(g6, g7));
  // 6to4 (2002::/16) carries an IPv4 address in its next 32 bits.
  if (g0 === 0x2002) return classifyV4(embeddedV4(g1, g2));
  if ((g0 & 0xfe00) === 0xfc00) return 'unique_local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  // IETF protocol assignments incl. Teredo (2001::/23), documentation (2001:db8::/32).
  if (g0 === 0x2001 && (g1 < 0x200 || g1 === 0xdb8)) return 'reserved';
  // Only global unicast (2000::/3) is public; everything else (::/96 compatible, 100::/64 discard, fec0::/10...) is reserved.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/** Classifies an IP address (v4 or v6, any textual form node accepts); throws for a string that is not an IP. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare.split('%')[0]!);
  if (family === 4) return classifyV4(bare);
  if (family === 6) return classifyV6(bare);
  throw new Error(`not an IP address: ${address}`);
}

/** Resolves every address of `host` through `lookup` (bounded in time). */
export function lookupAll(lookup: WebhookLookup, host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`resolving ${host} took longer than ${LOOKUP_TIMEOUT_MS} ms`)),
      LOOKUP_TIMEOUT_MS,
    );
    timer.unref();
    lookup(host, { all: true, verbatim: true }, (err, address, family) => {
      clearTimeout(timer);
      if (err) return reject(err);
      resolve(Array.isArray(address) ? address : [{ address, family: family ?? isIP(address) }]);
    });
  });
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Why an address may not receive webhooks, or undefined when it may. */
export function forbiddenAddressReason(address: string): string | undefined {
  const cls = classifyAddress(address);
  return cls === 'public' ? undefined : `${address} is a ${cls.replace('_', '-')} address`;
}

/** A 400 VALIDATION_ERROR on `url`. */
function urlError(code: string, message: string): ServiceError {
  return new ServiceError('VALIDATION_ERROR', `url: ${message}`, {
    field: 'url',
    details: [{ field: 'url', code, message }],
  });
}

/**
 * Checks a webhook URL where it is configured: an absolute https URL (http too with `allowInsecure`), no credentials,
 * and (unless `allowInsecure`) a host that is a public IP or a name whose every address is public. Throws a
 * VALIDATION_ERROR on `url` saying what is wrong. The same check runs again at every connection (post-webhook.ts).
 */
export async function checkWebhookUrl(
  url: string,
  opts: { allowInsecure: boolean; lookup?: WebhookLookup },
): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw urlError('INVALID_URL', 'must be an absolute URL such as https://example.com/webhooks');
  }
  if (parsed.protocol !== 'https:' && !(opts.allowInsecure && parsed.protocol === 'http:')) {
    throw urlError('HTTPS_REQUIRED', opts.allowInsecure ? 'must use https or http' : 'must use https');
  }
  if (parsed.username || parsed.password)
    throw urlError('CREDENTIALS_IN_URL', 'must not carry a user name or password');
  if (opts.allowInsecure) return;
  const host = bareHost(parsed);
  if (isIP(host)) {
    const reason = forbiddenAddressReason(host);
    if (reason) throw urlError('FORBIDDEN_ADDRESS', `must reach a public address (${reason})`);
    return;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(opts.lookup ?? dnsLookup, host);
  } catch (err) {
    throw urlError(
      'UNRESOLVABLE_HOST',
      `host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  if (addresses.length === 0) throw urlError('UNRESOLVABLE_HOST', `host ${host} does not resolve`);
  for (const a of addresses) {
    const reason = forbiddenAddressReason(a.address);
    if (reason) throw urlError('FORBIDDEN_ADDRESS', `must reach a public address (${host} resolves to ${reason})`);
  }
}
