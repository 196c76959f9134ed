/** Opaque, stable slot ids (v1 slots): base64url of a small versioned JSON tuple. */

/** What a slot id names. */
export interface SlotIdParts {
  providerId: string;
  serviceId: string;
  /** Slot start, epoch ms. */
  start: number;
}

const VERSION = 's1';

/** Encodes a slot id; the same parts always give the same id. */
export function encodeSlotId(parts: SlotIdParts): string {
  return Buffer.from(JSON.stringify([VERSION, parts.providerId, parts.serviceId, parts.start]), 'utf8').toString('base64url');
}

/** Decodes a slot id, or returns null when it is malformed or not in canonical form. */
export function decodeSlotId(id: unknown): SlotIdParts | null {
  if (typeof id !== 'string' || id.length === 0 || id.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(id)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(id, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 4) return null;
  const [version, providerId, serviceId, start] = value as unknown[];
  if (version !== VERSION || typeof providerId !== 'string' || typeof serviceId !== 'string' || providerId === '' || serviceId === '') return null;
  if (typeof start !== 'number' || !Number.isSafeInteger(start)) return null;
  const parts = { providerId, serviceId, start };
  // Base64 decoding is lenient; only the canonical spelling is accepted so one slot has one id.
  return encodeSlotId(parts) === id ? parts : null;
}
