/** Opaque, stable slot ids (v1 slots): base64url of a small versioned JSON tuple. */

/** What a slot id names. */
export interface SlotIdParts {
  providerId: string;
  serviceId: string;
  /** Slot start, epoch ms. */
  start: number;
}

const VERSION = 's1';

// Web-standard codecs rather than Node's Buffer: the contract schemas validate slot ids with this module, and the
// browser console type-checks those schemas without Node's types.
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** base64url without padding (what Buffer's `base64url` encoding writes) of a string's UTF-8 bytes. */
function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of utf8Encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The UTF-8 text of a base64url string; throws when it cannot be base64 (atob is forgiving about padding). */
function fromBase64Url(id: string): string {
  const binary = atob(id.replace(/-/g, '+').replace(/_/g, '/'));
  return utf8Decoder.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** Encodes a slot id; the same parts always give the same id. */
export function encodeSlotId(parts: SlotIdParts): string {
  return toBase64Url(JSON.stringify([VERSION, parts.providerId, parts.serviceId, parts.start]));
}

/** Decodes a slot id, or returns null when it is malformed or not in canonical form. */
export function decodeSlotId(id: unknown): SlotIdParts | null {
  if (typeof id !== 'string' || id.length === 0 || id.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(id)) return null;
  let value: unknown;
  try {
    value = JSON.parse(fromBase64Url(id));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 4) return null;
  const [version, providerId, serviceId, start] = value as unknown[];
  if (
    version !== VERSION ||
    typeof providerId !== 'string' ||
    typeof serviceId !== 'string' ||
    providerId === '' ||
    serviceId === ''
  )
    return null;
  if (typeof start !== 'number' || !Number.isSafeInteger(start)) return null;
  const parts = { providerId, serviceId, start };
  // Base64 decoding is lenient; only the canonical spelling is accepted so one slot has one id.
  return encodeSlotId(parts) === id ? parts : null;
}
