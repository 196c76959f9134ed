import { isIP } from 'node:net';

/** What kind of address an IP is; only `public` addresses are reached by outbound calls unless insecure URLs are allowed. */
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

/** IPv4 blocks that outbound calls never reach: [first address as uint32, prefix length, class]. */
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

/** Classifies an address; the guard takes one so that a test can stand one loopback address in for a public host. */
export type ClassifyAddress = (address: string) => AddressClass;

/** Why an address may not be reached by an outbound call (`classify` judging it), or undefined when it may. */
export function forbiddenAddressReason(
  address: string,
  classify: ClassifyAddress = classifyAddress,
): string | undefined {
  const cls = classify(address);
  return cls === 'public' ? undefined : `${address} is a ${cls.replace('_', '-')} address`;
}
