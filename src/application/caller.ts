import type { KeyType } from '../domain/key-type.js';
import { witnessingActor } from '../persistence/audit-witness.js';

/** Who is calling and in which organization the call acts; resolved once for REST and gRPC alike. */
export interface Caller {
  requestId: string;
  keyId: string;
  keyType: KeyType;
  /** The mode of the key decides side effects (e-mail, webhooks). */
  mode: 'live' | 'test';
  platformId: string;
  /** The organization the operation acts in. */
  organizationId: string;
  isPlatformKey: boolean;
  /** True when a platform key named the organization with `Service-Organization-Id`. */
  viaOrganizationHeader: boolean;
}

const ACTOR = Symbol('the audit actor of this request');

/**
 * The audit actor of a caller (CONTRACT part 7): one object per request, which notes the audit events prepared
 * with it (persistence/audit-witness.ts), so the request knows which events it appended without a round trip.
 */
export function auditActor(caller: Caller): { keyId: string; keyType: KeyType } {
  const c = caller as Caller & { [ACTOR]?: { keyId: string; keyType: KeyType } };
  return (c[ACTOR] ??= witnessingActor({ keyId: caller.keyId, keyType: caller.keyType }));
}
