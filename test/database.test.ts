import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from '@mikro-orm/core';
import { maintainTables, type EmbeddedClient, type TableMaintenance } from '../src/db/embedded-maintenance.js';
import { openDatabase, type Database } from '../src/database.js';
import { PgliteThread } from '../src/db/pglite-thread.js';
import { createHostingService } from '../src/index.js';
import { FORGEKIT_VERSION } from '../src/version.js';
import packageJson from '../package.json' with { type: 'json' };
import { freshDatabase, migratedDataDir, sharedHosting, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
beforeAll(async () => {
  t = await sharedHosting();
});
afterAll(() => t.close());

describe('the database', () => {
  it('has exactly the schema the entities describe once the committed migrations ran', async () => {
    const difference = await t.db.orm.schema.getUpdateSchemaSQL({ wrap: false });
    // But for the test double's change markers (src/testing/snapshots.ts), one trigger a table, which the entities do not
    // describe (and the function the ORM supposes each trigger has).
    const lines = difference.split('\n').filter((line) => line.trim() !== '');
    const marker = /^drop (trigger if exists "forgekit_changed" on "\w+"|function if exists "\w+_forgekit_changed_fn"\(\));$/;
    const markers = lines.filter((line) => marker.test(line.trim()));
    expect(lines.filter((line) => !markers.includes(line))).toEqual([]);
    expect(markers.length).toBeGreaterThan(80);
  });

  it('keeps data in a PGlite data directory across restarts, and refuses a second opener', async () => {
    const dataDir = migratedDataDir();
    try {
      const first = await createHostingService({ database: { dataDir }, rootPassword: 'first-password' });
      await first.users.create({ email: 'kept@example.com', username: 'kept', name: 'Kept', password: 'long-enough-1' });
      await expect(createHostingService({ database: { dataDir } })).rejects.toThrow(
        /already open in this process|in use by another forgekit process/,
      );
      await first.close();
      const second = await createHostingService({ database: { dataDir } });
      expect(second.generatedRootPassword).toBeUndefined();
      expect((await second.users.list({ username: 'kept' })).map((user) => user.username)).toEqual(['kept']);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it(
    'runs a data directory’s PGlite in a thread of its own: errors keep their kind, a failed write leaves nothing, ' +
      'notifications arrive, a throwing transaction is rolled back',
    async () => {
      const dataDir = migratedDataDir();
      try {
        const hosting = await createHostingService({ database: { dataDir }, rootPassword: 'thread-password' });
        const user = { email: 'twice@example.com', username: 'twice', name: 'Twice', password: 'long-enough-1' };
        await hosting.users.create(user);
        // The unique violation crossed the thread as PostgreSQL's error, which the ORM and the API turn into 409.
        await expect(hosting.users.create({ ...user, email: 'other@example.com' })).rejects.toMatchObject({ status: 409 });
        expect((await hosting.users.list({ username: 'twice' })).length).toBe(1);
        await hosting.close();
        const thread = await PgliteThread.open(join(dataDir, 'pgdata'));
        const heard = new Promise((resolve) => void thread.listen('forgekit_test', resolve));
        await thread.query(`notify forgekit_test, 'hello'`);
        expect(await heard).toBe('hello');
        await expect(
          thread.transaction(async (tx) => {
            await tx.query(`update "users" set "name" = 'Changed' where "username" = 'twice'`);
            throw new Error('undone');
          }),
        ).rejects.toThrow('undone');
        expect((await thread.query<{ name: string }>(`select "name" from "users" where "username" = 'twice'`)).rows).toEqual([
          { name: 'Twice' },
        ]);
        await thread.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  // PGlite has no autovacuum workers: without forgekit's passes a table is never analysed nor vacuumed.
  it(
    'looks after an embedded database as autovacuum would: ' + 'a table past its thresholds analysed and vacuumed, then left alone',
    async () => {
      const probe = async (db: EmbeddedClient) => {
        await db.query(`create table "maintenance_probe" ("id" serial primary key, "value" int not null)`);
        await db.query(`insert into "maintenance_probe" ("value") select n from generate_series(1, 3000) as n`);
        await db.query(`delete from "maintenance_probe" where "value" <= 1000`);
        const probed = (done: TableMaintenance[]) => done.filter((row) => row.table === 'public.maintenance_probe');
        expect(probed(await maintainTables(db))).toEqual([{ table: 'public.maintenance_probe', vacuumed: true, analyzed: true }]);
        const state = `select c."reltuples", s."last_vacuum" is not null as "vacuumed", s."n_dead_tup" from "pg_class" c
        join "pg_stat_user_tables" s on s."relid" = c."oid" where c."relname" = 'maintenance_probe'`;
        expect((await db.query(state)).rows).toEqual([{ reltuples: 2000, vacuumed: true, n_dead_tup: 0 }]);
        expect(probed(await maintainTables(db))).toEqual([]);
      };
      const dataDir = migratedDataDir();
      const thread = await PgliteThread.open(join(dataDir, 'pgdata'));
      try {
        await probe(thread);
      } finally {
        await thread.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
      const memory = await openDatabase();
      try {
        await probe((await memory.orm.driver.getConnection().getNativeClient()) as EmbeddedClient);
      } finally {
        await memory.close();
      }
    },
  );
});

/** The committed migrations' names, in order: the files of src/db/migrations. */
const MIGRATION_NAMES = readdirSync(new URL('../src/db/migrations/', import.meta.url))
  .filter((file) => /^Migration\d+_\w+\.ts$/.test(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

describe('a fresh instance', () => {
  const executed = async (db: Database) => (await db.orm.migrator.getExecuted()).map((row) => ({ ...row }));

  it('is isolated from the others, and a copy of one migrated template rather than migrated anew', async () => {
    const other = await startHosting();
    try {
      await t.hosting.users.create({ email: 'only-here@example.com', username: 'only-here', name: 'Only here', password: 'long-enough-1' });
      expect(await other.hosting.users.list({ username: 'only-here' })).toEqual([]);
      // Copies of one template: the same migrations, run once, at the same moment, before either was opened.
      const [mine, theirs] = [await executed(t.db), await executed(other.db)];
      expect(mine.map((row) => row.name)).toEqual(MIGRATION_NAMES);
      expect(theirs).toEqual(mine);
    } finally {
      await other.close();
    }
  });

  it.runIf(process.env.FORGEKIT_TEST_DATABASE_URL)('on PostgreSQL (isolated) is a database of its own, dropped on close', async () => {
    const db = await openDatabase({ url: process.env.FORGEKIT_TEST_DATABASE_URL, isolated: true });
    const [{ name }] = await db.fork().execute<{ name: string }[]>(raw('select current_database() as name'));
    const exists = async () => (await t.db.fork().execute(raw('select 1 from pg_database where datname = ?', [name]))).length > 0;
    expect(name).toMatch(/^forgekit_isolated_/);
    expect(await exists()).toBe(true);
    await db.close();
    expect(await exists()).toBe(false);
  });

  it.runIf(process.env.FORGEKIT_TEST_DATABASE_URL)(
    'on PostgreSQL (isolated) starts from a spare copy made ahead, which the next one takes',
    async () => {
      const spares = async () =>
        (
          await t.db.rows.execute<{ datname: string }[]>(
            `select datname from pg_database where datname ~ '^forgekit_template_[0-9a-f]{16}_spare_'`,
          )
        ).map(({ datname }) => datname);
      const first = await openDatabase({ url: process.env.FORGEKIT_TEST_DATABASE_URL, isolated: true });
      // The one this instance left is made in the background.
      let spare: string[] = [];
      for (let waited = 0; waited < 10_000 && spare.length === 0; waited += 50) {
        spare = await spares();
        if (!spare.length) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(spare.length).toBeGreaterThan(0);
      const second = await openDatabase({ url: process.env.FORGEKIT_TEST_DATABASE_URL, isolated: true });
      try {
        const [{ name }] = await second.rows.execute<{ name: string }[]>('select current_database() as name');
        expect(name).toMatch(/^forgekit_isolated_/);
        // Taken by renaming (by this instance, or by one that another test file opened meanwhile), and the copy
        // is whole: the migrated tables, with no rows.
        expect(await spares()).not.toContain(spare[0]);
        expect(await second.rows.execute('select count(*)::int as users from users')).toEqual([{ users: 0 }]);
      } finally {
        await first.close();
        await second.close();
      }
    },
  );

  it('is refused as isolated on a data directory, which is never new', async () => {
    await expect(createHostingService({ database: { dataDir: 'anywhere', isolated: true } })).rejects.toMatchObject({
      status: 400,
      messages: { database: [expect.stringMatching(/isolated needs url/)] },
    });
  });
});

describe('first start', () => {
  it('creates root (id 1) as an administrator, with a generated password when none is given', async () => {
    const hosting = await createHostingService();
    try {
      expect(hosting.generatedRootPassword).toEqual(expect.any(String));
      const session = await hosting.as(null).session.create({ login: 'root', password: hosting.generatedRootPassword as string });
      expect(session).toMatchObject({ id: 1, username: 'root', is_admin: true });
    } finally {
      await hosting.close();
    }
  });

  it('rejects invalid options with a clear error', async () => {
    await expect(createHostingService({ rootPassword: 'short' })).rejects.toMatchObject({
      status: 400,
      messages: { rootPassword: ['is too short (minimum is 8 characters)'] },
    });
  });
});

describe('the version', () => {
  it('matches package.json', () => {
    expect(FORGEKIT_VERSION).toBe(packageJson.version);
  });
});

describe.runIf(process.env.FORGEKIT_TEST_DATABASE_URL)('several processes on one PostgreSQL database', () => {
  it('start together: migrations and the first start happen once', async () => {
    const database = await freshDatabase();
    try {
      const storage = mkdtempSync(join(tmpdir(), 'forgekit-processes-'));
      const started = await Promise.all([1, 2, 3].map(() => createHostingService({ database: { url: database.url }, storage })));
      try {
        expect(started.filter((hosting) => hosting.generatedRootPassword).length).toBe(1);
        for (const hosting of started) expect((await hosting.users.list()).map((user) => user.username)).toEqual(['root']);
      } finally {
        await Promise.all(started.map((hosting) => hosting.close()));
        rmSync(storage, { recursive: true, force: true });
      }
    } finally {
      await database.drop();
    }
  });
});
