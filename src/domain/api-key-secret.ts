import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyType } from './key-type.js';

const KEY_PATTERN = /^service_(live|test)_[A-Za-z0-9_-]{32,200}$/;

/** Makes a new secret key for a key type: `service_live_` or `service_test_` plus 43 URL-safe characters. */
export function generateApiKey(type: KeyType): string {
  const mode = type.endsWith('_live') ? 'live' : 'test';
  return `service_${mode}_${randomBytes(32).toString('base64url')}`;
}

/** Answers whether a string has the shape of a key (prefix and length), without looking it up. */
export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The mode a key's prefix states. */
export function keyMode(key: string): 'live' | 'test' {
  return key.startsWith('service_live_') ? 'live' : 'test';
}

/** SHA-256 of a key: the only form in which keys are stored. */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Compares two key hashes in constant time. */
export function sameKeyHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A short, safe-to-show hint of a key (prefix and last 4 characters). */
export function keyHint(key: string): string {
  return `${key.slice(0, 13)}…${key.slice(-4)}`;
}
