import {
  copyFileSync,
  cpSync,
  type Dirent,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, relative } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import type { Database, EntityManager } from '../db/orm.js';
import { queryRows } from '../db/rows.js';
import { fixedSql, sql } from '../db/sql.js';
import { BadRequestError } from '../errors.js';
import { isObjectFile, LINK_REFUSED } from '../git/store.js';

// An instance's states kept as a test double keeps them (docs/testing.md): every table's rows copied, in the database
// itself, into a schema of their own (one statement, a table per table that has rows), the sequences' positions beside
// them, and the repositories copied into a directory of the process's. Put back in one statement too: the tables that
// have rows emptied, the snapshot's rows copied back, the sequences set where they were.

/** The schema the snapshots' tables live in: not the instance's own (its tables are the current schema's). */
const SCHEMA = 'forgekit_snapshots';

/** A state kept: its name, when, and where its rows and repositories are. */
export interface Snapshot {
  name: string;
  created_at: string;
  /** Its tables' prefix in SCHEMA (`s<n>_`): names stay short of PostgreSQL's 63 bytes. */
  prefix: string;
  /** Where the repositories' copies are, by storage name. */
  directory: string;
}

/**
 * The current schema's sequences (but the migrations' record's) with their positions (null: never used), as
 * `pg_sequences` has them, read from the catalogue directly: that view costs several times more, and a reset reads it.
 */
const SEQUENCES = `(select c.relname::text as name, pg_sequence_last_value(c.oid) as last_value from pg_class c
    where c.relkind = 'S' and c.relnamespace = current_schema()::regnamespace and c.relname not like 'mikro_orm%')`;
/** Text put inside a `format('...')` of PL/pgSQL: its quotes doubled, its `%` too. */
const inFormat = (text: string) => text.replaceAll("'", "''").replaceAll('%', '%%');

/**
 * Copies every table of the current schema that has rows (but the migrations' record) into SCHEMA under `prefix`, and
 * the sequences' positions into `<prefix>sequences`.
 */
const COPY_TABLES = (prefix: string) => `do $$
declare
  name text;
  found boolean;
begin
  create schema if not exists ${SCHEMA};
  for name in select tablename from pg_tables where schemaname = current_schema() and tablename not like 'mikro_orm%' loop
    execute format('select exists (select from %I)', name) into found;
    if found then execute format('create table ${SCHEMA}.%I as select * from %I', '${prefix}' || name, name); end if;
  end loop;
  execute format('create table ${SCHEMA}.%I as select name, last_value from ${inFormat(SEQUENCES)} p', '${prefix}sequences');
end $$`;

/**
 * Marks each table of the current schema as changed by any statement that writes it: a statement trigger moves the
 * table's marker sequence (`m_<table>` in SCHEMA). A sequence, not a row: `nextval` never waits for another transaction
 * nor rolls back, so concurrent writers neither wait on each other nor deadlock, and a write rolled back costs at most
 * a table put back for nothing. Made once, when a test double starts.
 */
const TRACK_CHANGES = `do $$
declare
  name text;
begin
  create schema if not exists ${SCHEMA};
  create or replace function ${SCHEMA}.changed() returns trigger language plpgsql as $f$
  begin
    perform nextval(TG_ARGV[0]::regclass);
    return null;
  end $f$;
  for name in select tablename from pg_tables where schemaname = current_schema() and tablename not like 'mikro_orm%' loop
    execute format('create sequence if not exists ${SCHEMA}.%I', 'm_' || name);
    execute format('create or replace trigger forgekit_changed after insert or update or delete or truncate on %I
      for each statement execute function ${SCHEMA}.changed(%L)', name, format('${SCHEMA}.%I', 'm_' || name));
  end loop;
end $$`;

/** The marker sequences' positions, by table. */
const MARKERS = sql`select substr(relname, 3) as name, pg_sequence_last_value(oid)::text as value from pg_class
  where relkind = 'S' and relnamespace = ${SCHEMA}::regnamespace and relname like 'm\_%'`;

/**
 * Puts back the rows of the tables named (every table of the current schema when none are), and sets the sequences
 * that moved: the tables are emptied and, given a snapshot's prefix, its rows copied back; the sequences are set where
 * the snapshot had them (restarted where it had not used them). Rows go by DELETE (a TRUNCATE makes new files for
 * every table, which costs more for the few rows a test makes), without foreign keys and triggers (so without marking
 * anything changed: `session_replication_role`): what goes back was whole when copied.
 */
export const RESTORE_TABLES = (prefix: string | undefined, only?: readonly string[]) => `do $$
declare
  name text;
  found boolean;
  position bigint;
begin
  set local session_replication_role = replica;
  for name in ${
    only
      ? `select unnest(array[${only.map((table) => `'${table.replaceAll("'", "''")}'`).join(', ')}]::text[])`
      : `select tablename from pg_tables where schemaname = current_schema() and tablename not like 'mikro_orm%'`
  } loop
    execute format('select exists (select from %I)', name) into found;
    if found then execute format('delete from %I', name); end if;
    ${
      prefix === undefined
        ? ''
        : `if to_regclass(format('${SCHEMA}.%I', '${prefix}' || name)) is not null then
      execute format('insert into %I select * from ${SCHEMA}.%I', name, '${prefix}' || name);
    end if;`
    }
  end loop;
  for name, position in ${
    prefix === undefined
      ? `select name, null::bigint from ${SEQUENCES} p where last_value is not null`
      : `execute format('select p.name, s.last_value from ${inFormat(SEQUENCES)} p left join ${SCHEMA}.%I s
    on s.name = p.name where p.last_value is distinct from s.last_value', '${prefix}sequences')`
  } loop
    if position is null then perform setval(quote_ident(name), 1, false); else perform setval(quote_ident(name), position); end if;
  end loop;
  set local session_replication_role = origin;
end $$`;

/** Drops a snapshot's tables. */
const DROP_TABLES = (prefix: string) => `do $$
declare
  name text;
begin
  for name in select tablename from pg_tables where schemaname = '${SCHEMA}' and tablename like '${prefix}%' loop
    execute format('drop table ${SCHEMA}.%I', name);
  end loop;
end $$`;

/** A snapshot file's description of itself (`snapshot.json` in the zip). */
interface SnapshotManifest {
  format: typeof FILE_FORMAT;
  /** The last migration of the schema its rows fit. */
  migration: string;
  /** The tables that had rows (each in `tables/<name>.json`). */
  tables: string[];
  sequences: { name: string; last_value: string }[];
  /** The storages whose repositories it holds (under `repositories/<storage>/`). */
  storages: string[];
}

const FILE_FORMAT = 'forgekit-snapshot/1';
/** What a snapshot file may hold once unpacked: its rows and its repositories together. */
const MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024;

/** Snapshot names: what a test names a state (and a file of it). */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** The name a snapshot loaded from a file takes by default: the file's, without its extension, as a name may be. */
export function snapshotNameOf(file: string): string {
  const name = basename(file, extname(file))
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  return SNAPSHOT_NAME.test(name) ? name : 'loaded';
}

/** The snapshots of one instance. Its directory (the repositories' copies) goes when the instance closes. */
export class Snapshots {
  private readonly kept = new Map<string, Snapshot>();
  private directory?: string;
  private counter = 0;
  /**
   * The snapshot the rows were last the same as (taken, or put back), with the marker sequences' positions then: a
   * table whose marker has not moved since still holds that snapshot's rows, and is left as it is.
   */
  private current?: { snapshot: Snapshot; markers: Map<string, string | null> };
  private tracking = false;

  constructor(
    private readonly db: Database,
    private readonly storages: Record<string, string>,
  ) {}

  /** Marks each table when written from now on, so that a reset puts back only what changed (TRACK_CHANGES). */
  async trackChanges(): Promise<void> {
    await this.db.rows.execute(TRACK_CHANGES);
    this.tracking = true;
  }

  list(): Snapshot[] {
    return [...this.kept.values()];
  }

  get(name: string): Snapshot | undefined {
    return this.kept.get(name);
  }

  /** Keeps the instance's state now under `name` (one of the same name is replaced). */
  async take(name: string): Promise<Snapshot> {
    const prefix = this.prefix();
    const directory = join(this.snapshotsDirectory(), prefix);
    const markers = await this.db.fork().transactional(async (em) => {
      await em.execute(COPY_TABLES(prefix));
      return markersOf(em);
    });
    for (const [storage, root] of Object.entries(this.storages)) linkDirectory(root, join(directory, storage));
    const snapshot = await this.keep(name, prefix, directory);
    this.current = { snapshot, markers };
    return snapshot;
  }

  /** A new snapshot's tables' prefix, unique in the database: several instances may share a PostgreSQL database's schema. */
  private prefix(): string {
    return `s${process.pid.toString(36)}${Date.now().toString(36)}${(this.counter++).toString(36)}_`;
  }

  private snapshotsDirectory(): string {
    this.directory ??= mkdtempSync(join(tmpdir(), 'forgekit-snapshots-'));
    return this.directory;
  }

  /** Keeps a snapshot made under `name`, dropping one of the same name. */
  private async keep(name: string, prefix: string, directory: string): Promise<Snapshot> {
    const replaced = this.kept.get(name);
    const snapshot: Snapshot = { name, created_at: new Date().toISOString(), prefix, directory };
    this.kept.set(name, snapshot);
    if (replaced) await this.drop(replaced);
    return snapshot;
  }

  /**
   * The instance's state now as a snapshot file's bytes: a zip of `snapshot.json`, each table's rows as JSON (as
   * PostgreSQL writes and reads them back, `json_populate_recordset`: no type lost on the way) and the repositories.
   * Read in one repeatable-read transaction, so that the rows agree with each other.
   */
  async save(): Promise<Uint8Array> {
    const entries: Zippable = {};
    const manifest = await this.db.fork().transactional(
      async (em) => {
        const tables = (await queryRows(
          em,
          sql`select tablename from pg_tables where schemaname = current_schema()
          and tablename not like 'mikro_orm%' order by tablename`,
        )) as { tablename: string }[];
        // Every table's rows in one statement (the names are the catalogue's, quoted).
        const rows = (await queryRows(
          em,
          fixedSql(
            tables
              .map(
                ({ tablename }) =>
                  `select '${tablename.replaceAll("'", "''")}' as name, (select json_agg(t)::text from ${quoted(tablename)} t) as rows`,
              )
              .join(' union all '),
          ),
        )) as { name: string; rows: string | null }[];
        const filled = rows.filter((table) => table.rows !== null);
        for (const table of filled) entries[`tables/${table.name}.json`] = strToU8(table.rows!);
        const sequences = (await queryRows(
          em,
          sql`select sequencename::text as name, last_value::text from pg_sequences
          where schemaname = current_schema() and last_value is not null and sequencename not like 'mikro_orm%'`,
        )) as {
          name: string;
          last_value: string;
        }[];
        return {
          format: FILE_FORMAT,
          migration: await lastMigration(em),
          tables: filled.map((table) => table.name),
          sequences,
          storages: Object.keys(this.storages),
        } satisfies SnapshotManifest;
      },
      { isolationLevel: 'repeatable read' },
    );
    // Git's objects are compressed already.
    for (const [storage, root] of Object.entries(this.storages))
      for (const file of filesUnder(root))
        entries[`repositories/${storage}/${relative(root, file).split('\\').join('/')}`] = [readFileSync(file), { level: 0 }];
    entries['snapshot.json'] = strToU8(JSON.stringify(manifest));
    return zipSync(entries, { level: 1 });
  }

  /**
   * Keeps a snapshot file's state under `name`, as `take` keeps the instance's: its rows into SCHEMA, its repositories
   * into the directory. A file that is not a snapshot, or one of another schema (an older or newer forgekit), is a 400.
   */
  async load(name: string, bytes: Uint8Array): Promise<Snapshot> {
    const files = unpack(bytes);
    const manifest = manifestOf(files);
    if (manifest.storages.some((storage) => !(storage in this.storages)))
      throw BadRequestError.invalid('file', `names storages this instance does not have (${manifest.storages.join(', ')})`);
    const prefix = this.prefix();
    const directory = join(this.snapshotsDirectory(), prefix);
    await this.db.fork().transactional(async (em) => {
      const migration = await lastMigration(em);
      if (manifest.migration !== migration)
        throw BadRequestError.invalid(
          'file',
          `was saved by a forgekit of another schema (${manifest.migration}; this one is at ${migration})`,
        );
      const tables = new Set(
        ((await queryRows(em, sql`select tablename from pg_tables where schemaname = current_schema()`)) as { tablename: string }[]).map(
          (table) => table.tablename,
        ),
      );
      await em.execute(`create schema if not exists ${SCHEMA}`);
      for (const table of manifest.tables) {
        if (!tables.has(table) || table.startsWith('mikro_orm')) throw BadRequestError.invalid('file', `names an unknown table (${table})`);
        const rows = files[`tables/${table}.json`];
        if (!rows) throw BadRequestError.invalid('file', `misses the rows of ${table}`);
        const kept = `${SCHEMA}.${quoted(prefix + table)}`;
        await em.execute(`create table ${kept} (like ${quoted(table)})`);
        await queryRows(
          em,
          sql`insert into ${fixedSql(kept)}
            select * from json_populate_recordset(null::${fixedSql(quoted(table))}, ${strFromU8(rows)}::json)`,
        );
      }
      await em.execute(`create table ${SCHEMA}.${quoted(`${prefix}sequences`)} (name text, last_value bigint)`);
      for (const { name: sequence, last_value } of manifest.sequences)
        await queryRows(
          em,
          sql`insert into ${fixedSql(`${SCHEMA}.${quoted(`${prefix}sequences`)}`)} select sequencename, ${last_value}::bigint
            from pg_sequences where schemaname = current_schema() and sequencename = ${sequence}`,
        );
    });
    for (const storage of Object.keys(this.storages)) mkdirSync(join(directory, storage), { recursive: true });
    for (const [path, content] of Object.entries(files)) {
      if (!path.startsWith('repositories/') || path.endsWith('/')) continue;
      const [, storage, ...rest] = path.split('/');
      if (!(storage in this.storages) || rest.some((part) => part === '' || part === '.' || part === '..' || part.includes('\\')))
        throw BadRequestError.invalid('file', `holds a file outside the repositories (${path})`);
      const target = join(directory, storage, ...rest);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
    return this.keep(name, prefix, directory);
  }

  /**
   * Puts the database's rows and the repositories back as `snapshot` kept them (none: empty); the statement is run by
   * `execute` (in a transaction that tells the process's caches).
   */
  async putBack(snapshot: Snapshot | undefined, execute: (statement: string) => Promise<void>): Promise<void> {
    const markers = this.tracking ? await markersOf(this.db.rows) : new Map<string, string | null>();
    // Back to the snapshot the rows were last the same as: only the tables written since (when they are marked).
    const since = snapshot && this.tracking && this.current?.snapshot === snapshot ? this.current.markers : undefined;
    const changed = since && [...markers].filter(([table, position]) => since.get(table) !== position).map(([table]) => table);
    this.current = undefined;
    await execute(RESTORE_TABLES(snapshot?.prefix, changed));
    if (snapshot) this.current = { snapshot, markers };
    for (const [storage, root] of Object.entries(this.storages)) {
      rmSync(root, { recursive: true, force: true });
      if (snapshot) linkDirectory(join(snapshot.directory, storage), root);
      else mkdirSync(root, { recursive: true });
    }
  }

  async remove(name: string): Promise<boolean> {
    const snapshot = this.kept.get(name);
    if (!snapshot) return false;
    this.kept.delete(name);
    await this.drop(snapshot);
    return true;
  }

  /** Every snapshot dropped: the database's tables and the directory. */
  async close(): Promise<void> {
    for (const snapshot of [...this.kept.values()]) await this.drop(snapshot).catch(() => {});
    this.kept.clear();
    if (this.directory) rmSync(this.directory, { recursive: true, force: true });
  }

  private async drop(snapshot: Snapshot): Promise<void> {
    if (this.current?.snapshot === snapshot) this.current = undefined;
    await this.db.rows.execute(DROP_TABLES(snapshot.prefix));
    rmSync(snapshot.directory, { recursive: true, force: true });
  }
}

/**
 * A directory of repositories copied into another (an empty one made when it does not exist), their objects as hard
 * links, as a fork's copy makes them (src/git/store.ts `copyRepository`): an object's file never changes once written,
 * so the snapshot and the storage can share it; the few other files (references, configuration) are copied, and so is
 * everything where no link can be made (another file system).
 */
function linkDirectory(from: string, to: string, linking = { ok: true }): void {
  mkdirSync(to, { recursive: true });
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(from, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) linkDirectory(source, target, linking);
    else if (entry.isFile() && linking.ok && isObjectFile(source))
      try {
        linkSync(source, target);
      } catch (error) {
        if (!LINK_REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
        linking.ok = false;
        copyFileSync(source, target);
      }
    else cpSync(source, target);
  }
}

/** The marker sequences' positions, by table (none before `trackChanges`). */
async function markersOf(em: EntityManager): Promise<Map<string, string | null>> {
  const rows = (await queryRows(em, MARKERS)) as { name: string; value: string | null }[];
  return new Map(rows.map((row) => [row.name, row.value]));
}

/** A name from the catalogue, quoted. */
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The last migration applied: the schema a snapshot file's rows fit. */
async function lastMigration(em: EntityManager): Promise<string> {
  const [row] = (await queryRows(em, sql`select max(name) as name from mikro_orm_migrations`)) as { name: string | null }[];
  return row?.name ?? '';
}

/** The regular files under a directory, at any depth. */
function filesUnder(root: string): string[] {
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

/** A snapshot file's entries, refused (400) when it is not a zip or would unpack past MAX_UNPACKED_BYTES. */
function unpack(bytes: Uint8Array): Record<string, Uint8Array> {
  let unpacked = 0;
  try {
    return unzipSync(bytes, {
      filter: (file) => {
        unpacked += file.originalSize;
        if (unpacked > MAX_UNPACKED_BYTES) throw BadRequestError.invalid('file', 'is too large once unpacked');
        return true;
      },
    });
  } catch (error) {
    if (error instanceof BadRequestError) throw error;
    throw BadRequestError.invalid('file', 'is not a snapshot file (a zip written by forgekit snapshot save)');
  }
}

function manifestOf(files: Record<string, Uint8Array>): SnapshotManifest {
  const notOne = () => BadRequestError.invalid('file', 'is not a snapshot file (no snapshot.json of its format)');
  if (!files['snapshot.json']) throw notOne();
  let manifest: SnapshotManifest;
  try {
    manifest = JSON.parse(strFromU8(files['snapshot.json']));
  } catch {
    throw notOne();
  }
  const strings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (
    manifest?.format !== FILE_FORMAT ||
    typeof manifest.migration !== 'string' ||
    !strings(manifest.tables) ||
    !strings(manifest.storages) ||
    !Array.isArray(manifest.sequences) ||
    !manifest.sequences.every((item) => typeof item?.name === 'string' && /^\d+$/.test(String(item.last_value)))
  )
    throw notOne();
  return manifest;
}
