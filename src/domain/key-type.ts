/** Key types of SPEC part 5. */
export type KeyType = 'platform_live' | 'platform_test' | 'organization_live' | 'organization_test';
