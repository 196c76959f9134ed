import { isIP, isIPv6 } from 'node:net';
import { ServiceError } from '../errors/service-error.js';
import type { Redis } from '../persistence/redis-client.js';
import { createRateLimiter } from './rate-limiter.js';

/**
 * The bucket a client address is counted in: an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4
 * address), an IPv6 address by its /64 prefix (one host is usually given a whole /64, so counting single addresses
 * would let it change address at every attempt), anything else (no address) as `unknown`.
 */
export function clientAddressBucket(address: string | undefined): string {
  const a = address?.trim().toLowerCase() ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1]!;
  if (isIP(a) === 4) return a;
  if (!isIPv6(a)) return 'unknown';
  const [head = '', tail] = a.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * The client address of a gRPC peer as grpc-js names it (`127.0.0.1:5000`, `::1:5000`: address and port, the IPv6
 * address without brackets), or the text itself when it names no port.
 */
export function addressOfPeer(peer: string): string {
  const colon = peer.lastIndexOf(':');
  const address = peer.slice(0, colon).replace(/^\[|\]$/g, '');
  return colon > 0 && /^\d+$/.test(peer.slice(colon + 1)) && isIP(address) !== 0 ? address : peer;
}

/**
 * Counts failed authentications (a missing, malformed, unknown, revoked or expired key) per client address in a fixed
 * one-minute window shared by every process through Redis, and turns the failures past `limitPerMinute` into 429
 * `RATE_LIMITED` with `Retry-After`. Only failures are counted and only failures are refused: a valid key from the
 * same address is never counted, never refused, and costs no Redis round trip. When Redis does not answer, the
 * failure is answered as it was (401): the refusal stands either way.
 */
export function createFailedAuthLimit(deps: {
  redis: Redis;
  limitPerMinute: number;
  clock: () => Date;
  onRoundTrip?: (seconds: number) => void;
}) {
  const consume = createRateLimiter({
    redis: deps.redis,
    limitPerMinute: deps.limitPerMinute,
    clock: deps.clock,
    onRoundTrip: deps.onRoundTrip,
  });
  /** Counts one failure of `address` and answers the error to throw: `failure`, or RATE_LIMITED past the limit. */
  return async function countFailure(address: string | undefined, failure: ServiceError): Promise<ServiceError> {
    if (deps.limitPerMinute === 0) return failure;
    const bucket = clientAddressBucket(address);
    const state = await consume(`failed-auth:${bucket}`).catch(() => undefined);
    if (state === undefined || state.allowed) return failure;
    return new ServiceError(
      'RATE_LIMITED',
      `More than ${state.limit} failed authentications a minute from this address: check the API key, then retry after Retry-After seconds.`,
      { retryAfter: state.reset },
    );
  };
}

/** The countFailure function created by createFailedAuthLimit. */
export type FailedAuthLimit = ReturnType<typeof createFailedAuthLimit>;
