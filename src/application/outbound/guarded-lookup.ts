import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenAddressReason, type ClassifyAddress } from './classify-address.js';

/** A `dns.lookup`-compatible function (node's LookupFunction); tests inject one to steer names to addresses. */
export type OutboundLookup = LookupFunction;

/** How long resolving an outbound host may take before the URL is refused or the call fails. */
const LOOKUP_TIMEOUT_MS = 5_000;

/** Resolves every address of `host` through `lookup` (bounded in time). */
export function lookupAll(lookup: OutboundLookup, host: string): Promise<LookupAddress[]> {
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

/**
 * A lookup that resolves every address of the name and refuses the connection (before any socket connects, with
 * code `EFORBIDDENADDRESS`) when one of them is not public: a name that pointed at a public address when the URL was
 * saved and at 127.0.0.1 now fails here (DNS rebinding). The socket connects only to addresses this checked.
 */
export function guardedLookup(inner: OutboundLookup, classify?: ClassifyAddress): LookupFunction {
  return (hostname, options, callback) => {
    lookupAll(inner, hostname).then(
      (addresses) => {
        const bad = addresses.map((a) => forbiddenAddressReason(a.address, classify)).find((r) => r !== undefined);
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
        if (bad)
          return callback(
            Object.assign(new Error(`refused to connect: ${hostname} resolves to ${bad}`), {
              code: 'EFORBIDDENADDRESS',
            }),
            '',
            0,
          );
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        const list = wanted.length > 0 ? wanted : addresses;
        if (options.all) return callback(null, list);
        callback(null, list[0]!.address, list[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
