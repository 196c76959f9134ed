import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import {
  classifyAddress,
  type AddressClass,
  type ClassifyAddress,
} from '../../src/application/outbound/classify-address.js';
import type { OutboundLookup } from '../../src/application/outbound/guarded-lookup.js';

/** The address-class table every outbound guard test shares: an address and the class it must get. */
export const ADDRESSES: [string, AddressClass][] = [
  ['93.184.216.34', 'public'],
  ['8.8.8.8', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['172.32.0.1', 'public'],
  ['172.15.255.255', 'public'],
  ['169.254.169.254', 'link_local'],
  ['169.254.0.1', 'link_local'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf::1', 'link_local'],
  ['fc00::1', 'unique_local'],
  ['fd12:3456::1', 'unique_local'],
  ['100.64.0.1', 'shared_cgnat'],
  ['100.127.255.255', 'shared_cgnat'],
  ['100.128.0.1', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['fec0::1', 'reserved'],
  // IPv4-mapped and -embedding IPv6 forms are judged by the IPv4 address they carry.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:a9fe:a9fe', 'link_local'],
  ['::ffff:93.184.216.34', 'public'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:5db8:d822::1', 'public'],
  ['::127.0.0.1', 'reserved'],
];

/**
 * Hosts (as written in a URL) that all lead to this machine's loopback listener: every textual form of 127.0.0.1 the
 * URL parser or the resolver accepts, and names resolving there. Each must be refused before any socket connects.
 */
export const LOOPBACK_HOSTS: [string, string][] = [
  ['127.0.0.1', 'IPv4 loopback'],
  ['2130706433', 'decimal IPv4'],
  ['0x7f000001', 'hexadecimal IPv4'],
  ['0177.0.0.1', 'octal first part'],
  ['127.1', 'two-part IPv4'],
  ['0x7f.1', 'hexadecimal two-part IPv4'],
  ['0.0.0.0', 'unspecified (reaches local listeners)'],
  ['0', 'one-part zero (0.0.0.0)'],
  ['[::1]', 'IPv6 loopback'],
  ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
  ['[::ffff:7f00:1]', 'IPv4-mapped loopback, hex'],
  ['[0:0:0:0:0:ffff:127.0.0.1]', 'IPv4-mapped loopback, long form'],
  ['localhost', 'localhost (system resolver)'],
  ['loopback.test', 'name resolving to 127.0.0.1'],
  ['mapped.test', 'name resolving to ::ffff:127.0.0.1'],
  ['mixed.test', 'name with one public and one loopback address'],
];

/** Hosts of other non-public classes (nothing listens there; the guard must refuse them without trying). */
export const OTHER_FORBIDDEN_HOSTS: [string, string][] = [
  ['169.254.169.254', 'cloud metadata (link-local)'],
  ['10.0.0.8', 'private 10/8'],
  ['192.168.0.8', 'private 192.168/16'],
  ['100.64.1.1', 'shared CGNAT'],
  ['[fd00::5]', 'IPv6 unique-local'],
  ['[fe80::1]', 'IPv6 link-local'],
  ['[::ffff:a9fe:a9fe]', 'IPv4-mapped metadata address'],
  ['metadata.test', 'name resolving to the metadata address'],
  ['private.test', 'name resolving to a private address'],
];

/** Names the test lookup answers; `localhost` goes to the system resolver, anything else does not resolve. */
const NAMES: Record<string, string[]> = {
  'loopback.test': ['127.0.0.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'private.test': ['10.1.2.3'],
  'allowed.test': ['127.0.0.2'],
};

/** The DNS of the guard tests: NAMES, `localhost` by the system resolver, every other name unresolvable. */
export const testLookup: OutboundLookup = ((
  host: string,
  opts: object,
  cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[] | string, family?: number) => void,
) => {
  if (host === 'localhost') return systemLookup(host, { ...opts, all: true }, cb);
  const found = NAMES[host];
  if (!found) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
  cb(
    null,
    found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
  );
}) as unknown as OutboundLookup;

/**
 * The one loopback address the guard tests let stand in for a public host, so that an allowed hop (a feed that
 * redirects) can be served on this machine. Everything else, 127.0.0.1 included, is judged by classifyAddress.
 */
export const STAND_IN_PUBLIC = '127.0.0.2';

/** classifyAddress, except that STAND_IN_PUBLIC is public. */
export const classifyWithStandIn: ClassifyAddress = (address) =>
  address === STAND_IN_PUBLIC ? 'public' : classifyAddress(address);
