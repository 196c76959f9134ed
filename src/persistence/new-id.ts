import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
let lastTime = -1;
let sequence = 0;
// Random bytes are drawn 4 KiB at a time: one getrandom call per ~290 ids instead of two per id (a system call
// each, a visible share of a request's CPU). The bytes come from the same CSPRNG; each is used once.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** The next `n` unused random bytes of the pool (a view of it, valid until the next call). */
function takeRandom(n: number): Buffer {
  if (offset + n > pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const out = pool.subarray(offset, offset + n);
  offset += n;
  return out;
}

/** Writes `n` in base32 over exactly `width` characters. */
function base32(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

/**
 * Makes a time-ordered opaque id `<prefix>_<10 chars of ms time><4 chars of sequence><12 random chars>`
 * (Crockford base32). Ids of one process sort in creation order even within one millisecond (or under a
 * frozen test clock), so they serve as keyset pagination cursors.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  if (now > lastTime) {
    lastTime = now;
    sequence = takeRandom(2).readUInt16BE() % 4096;
  } else {
    sequence++;
  }
  const bytes = takeRandom(12);
  let rand = '';
  for (const b of bytes) rand += ALPHABET[b % 32];
  return `${prefix}_${base32(lastTime, 10)}${base32(sequence % 1_048_576, 4)}${rand}`;
}

/** `bytes` random bytes as lowercase hex, from the same pooled CSPRNG bytes as newId. */
export function randomHex(bytes: number): string {
  return takeRandom(bytes).toString('hex');
}

/**
 * The smallest id `newId(prefix, …)` can make at `ms` or later: every id of `prefix` below it was made before `ms`
 * (an id's time is its creation time, or later within one process), so `id < bound` finds older rows on the primary key.
 */
export function idTimeBound(prefix: string, ms: number): string {
  return `${prefix}_${base32(ms, 10)}`;
}
