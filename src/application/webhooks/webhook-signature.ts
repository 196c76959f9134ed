import { createHmac, randomBytes } from 'node:crypto';

/** The prefix of a webhook signing secret (`whsec_<base64 of 32 bytes>`). */
export const SECRET_PREFIX = 'whsec_';

/** Makes a new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a secret: its base64 part, decoded. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** A webhook's secrets as stored: the current one and, after a rotation, the previous one until it expires. */
export interface StoredSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The secrets that sign at `now`, newest first: the secret, then the previous one until it expires (24 h). */
export function signingSecrets(w: StoredSecrets, now: Date): string[] {
  const previous =
    w.previousSecret !== null && w.previousSecretExpiresAt !== null && w.previousSecretExpiresAt > now
      ? [w.previousSecret]
      : [];
  return [w.secret, ...previous];
}

/** What a delivery is signed over. */
export interface SignatureInput {
  /** The envelope id (stable across retries and replays). */
  id: string;
  /** Epoch seconds of this attempt. */
  timestamp: number;
  /** The exact request body. */
  rawBody: string;
  /** Signing secrets, newest first: the current one, plus the previous one during the 24 h after a rotation. */
  secrets: string[];
}

/**
 * The signature headers of CONTRACT part 6. `X-Service-Signature` is `sha256=<hex HMAC of "<ts>.<body>">`; during a
 * rotation it carries one value per secret, comma-separated, newest first (`sha256=<new>,sha256=<old>`): a receiver
 * accepts the request when any value matches. `webhook-signature` (Standard Webhooks) carries `v1,<base64 HMAC of
 * "<id>.<ts>.<body>">` per secret, space-separated, as that specification allows.
 */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  const ts = String(input.timestamp);
  const keys = input.secrets.map(secretKey);
  const service = keys.map((k) => `sha256=${createHmac('sha256', k).update(`${ts}.${input.rawBody}`).digest('hex')}`);
  const standard = keys.map(
    (k) => `v1,${createHmac('sha256', k).update(`${input.id}.${ts}.${input.rawBody}`).digest('base64')}`,
  );
  return {
    'X-Service-Timestamp': ts,
    'X-Service-Signature': service.join(','),
    'webhook-id': input.id,
    'webhook-timestamp': ts,
    'webhook-signature': standard.join(' '),
  };
}
