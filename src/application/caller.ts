/** Key types of SPEC part 5. */
export type KeyType = 'platform_live' | 'platform_test' | 'organization_live' | 'organization_test';

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

/** The audit actor of a caller (CONTRACT part 7). */
export function auditActor(caller: Caller): { keyId: string; keyType: KeyType } {
  return { keyId: caller.keyId, keyType: caller.keyType };
}
