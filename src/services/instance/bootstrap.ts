import { randomBytes } from 'node:crypto';
import { newRunnersToken, type SecretBox } from '../../auth/secret-box.js';
import { hashGeneratedPassword, hashPassword, tokenDigest } from '../../auth/secrets.js';
import { clockOf } from '../../clock.js';
import { AccessToken, ApplicationSettingsRow, InstanceSecret, Namespace, Project, User } from '../../db/entities/index.js';
import type { Database } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import { createUserNamespace, setTraversalIds } from '../projects/namespaces.js';
import { SETTINGS_ID } from './settings-store.js';

/** Any number, the same in every process: the advisory lock that serialises first starts. */
const BOOTSTRAP_LOCK = 774201;

export interface BootstrapResult {
  /** Set when root was created just now with a generated password: show it once. */
  generatedRootPassword?: string;
  /** On PostgreSQL without a configured `secretKey`: the one kept in the database, made on the first start. */
  storedSecretKey?: string;
}

/**
 * First start: the settings row and the administrator `root` (id 1). With `rootToken`, on every start,
 * root also accepts that private token. Several processes starting at once on one PostgreSQL do this once.
 */
export async function bootstrap(
  db: Database,
  options: { rootPassword?: string; rootToken?: string; secretKey?: string; database?: { url?: string } },
): Promise<BootstrapResult> {
  return db.fork().transactional(async (em) => {
    await queryRows(em, sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`);
    const result: BootstrapResult = {};
    if (!(await em.findOne(ApplicationSettingsRow, { id: 1 }))) em.create(ApplicationSettingsRow, { id: 1, values: {} });
    let root = await em.findOne(User, { id: 1 });
    if (!root && (await em.count(User)) === 0) {
      const password = options.rootPassword ?? randomBytes(12).toString('base64url');
      if (!options.rootPassword) result.generatedRootPassword = password;
      const passwordHash = options.rootPassword ? await hashPassword(password) : await hashGeneratedPassword(password);
      const now = clockOf(em).now();
      root = em.create(User, {
        id: 1,
        username: 'root',
        usernameLower: 'root',
        name: 'Administrator',
        email: 'admin@example.com',
        passwordHash,
        admin: true,
        projectsLimit: 100000,
        confirmedAt: now,
      });
      const namespace = createUserNamespace(em, root);
      await em.flush();
      setTraversalIds(namespace, null);
      // The id was given explicitly: move the sequence past it.
      await queryRows(em, sql`select setval(pg_get_serial_sequence('users', 'id'), greatest((select max(id) from users), 1))`);
    }
    if (root && options.rootToken) {
      // Root accepts the configured token from every start on which it is given, even one a password change revoked.
      const digest = tokenDigest(options.rootToken);
      const existing = await em.findOne(AccessToken, { tokenDigest: digest, user: root, kind: 'private' });
      if (existing) existing.revoked = false;
      else em.create(AccessToken, { user: root, kind: 'private', name: 'root token', scopes: [], tokenDigest: digest });
    }
    if (options.database?.url && !options.secretKey) {
      // Every process on the database shares it; the first start makes it.
      let stored = await em.findOne(InstanceSecret, { name: 'secret_key' });
      stored ??= em.create(InstanceSecret, { name: 'secret_key', value: randomBytes(32).toString('hex') });
      result.storedSecretKey = stored.value;
    }
    await em.flush();
    return result;
  });
}

/**
 * Projects and groups made before their runners tokens were (none after): each gets one; and the instance its runners
 * registration token, once (another process starting at the same time keeps the first one written).
 */
export async function fillRunnersTokens(db: Database, secrets: SecretBox): Promise<void> {
  const em = db.fork();
  const projects = await em.find(Project, { runnersTokenSealed: null }, { fields: ['id'] });
  for (const project of projects) Object.assign(project, newRunnersToken(secrets));
  const groups = await em.find(Namespace, { kind: 'group', runnersTokenSealed: null }, { fields: ['id'] });
  for (const group of groups) Object.assign(group, newRunnersToken(secrets));
  await em.flush();
  const instance = newRunnersToken(secrets);
  await queryRows(
    db.rows,
    sql`update "application_settings" set "runners_registration_token_sealed" = ${instance.runnersTokenSealed},
      "runners_registration_token_digest" = ${instance.runnersTokenDigest}
     where "id" = ${SETTINGS_ID} and "runners_registration_token_sealed" is null`,
  );
}
