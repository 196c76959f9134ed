import type { ApiKeyRecord } from '../../persistence/api-key-repository.js';
import { KeyMode, KeyType, type ApiKey } from '../../gen/scheduling/v1/resources.js';
import type { KeyType as KeyTypeName } from '../../domain/key-type.js';
import type { Caller } from '../../application/caller.js';
import { enumNames } from './enum-names.js';

type KeyModeName = Caller['mode'];

/** A key type as the typed API names it (one enum, `KeyType`, given and answered alike). */
const KEY_TYPE: Record<KeyTypeName, KeyType> = {
  platform_live: KeyType.KEY_TYPE_PLATFORM_LIVE,
  platform_test: KeyType.KEY_TYPE_PLATFORM_TEST,
  organization_live: KeyType.KEY_TYPE_ORGANIZATION_LIVE,
  organization_test: KeyType.KEY_TYPE_ORGANIZATION_TEST,
};

/** A key mode as the typed API names it (one enum, `KeyMode`, given and answered alike). */
const KEY_MODE: Record<KeyModeName, KeyMode> = {
  live: KeyMode.KEY_MODE_LIVE,
  test: KeyMode.KEY_MODE_TEST,
};

/** The `KeyType` value of a key type. */
export function keyTypeMessage(type: KeyTypeName): KeyType {
  return KEY_TYPE[type];
}

/** The key type a request names; undefined for `KEY_TYPE_UNSPECIFIED` (not given) or a value of no type. */
export const keyTypeOfMessage = enumNames(KEY_TYPE);

/** The `KeyMode` value of a key mode. */
export function keyModeMessage(mode: KeyModeName): KeyMode {
  return KEY_MODE[mode];
}

/** The key mode a request names; undefined for `KEY_MODE_UNSPECIFIED` (not given) or a value of no mode. */
export const keyModeOfMessage = enumNames(KEY_MODE);

/** The `ApiKey` message of a key row (never its secret); a key without expiry or revocation leaves those unset. */
export function apiKeyMessage(key: ApiKeyRecord): ApiKey {
  return {
    id: key.id,
    type: key.type,
    organizationId: key.organizationId,
    name: key.name,
    hint: key.hint,
    createdAt: new Date(key.createdAt),
    expiresAt: key.expiresAt === null ? undefined : new Date(key.expiresAt),
    revokedAt: key.revokedAt === null ? undefined : new Date(key.revokedAt),
  };
}
