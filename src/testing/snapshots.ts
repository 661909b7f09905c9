import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../db/orm.js';

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
  execute format('create table ${SCHEMA}.%I as select sequencename::text as name, last_value from pg_sequences
    where schemaname = current_schema() and sequencename not like ''mikro_orm%%''', '${prefix}sequences');
end $$`;

/**
 * Empties the tables that have rows and restarts the sequences used; then, given a prefix, copies that snapshot's rows
 * back and sets the sequences where they were. Rows go by DELETE (a TRUNCATE makes new files for every table, which
 * costs more for the few rows a test makes), without foreign keys and triggers checked (`session_replication_role`):
 * every table is emptied, and what goes back was whole when copied.
 */
export const RESTORE_TABLES = (prefix?: string) => `do $$
declare
  name text;
  found boolean;
begin
  set local session_replication_role = replica;
  for name in select tablename from pg_tables where schemaname = current_schema() and tablename not like 'mikro_orm%' loop
    execute format('select exists (select from %I)', name) into found;
    if found then execute format('delete from %I', name); end if;
  end loop;
  for name in select sequencename from pg_sequences where schemaname = current_schema() and last_value is not null
    and sequencename not like 'mikro_orm%' loop
    perform setval(quote_ident(name), 1, false);
  end loop;
  ${
    prefix === undefined
      ? ''
      : `for name in select substr(tablename, ${prefix.length + 1}) from pg_tables
    where schemaname = '${SCHEMA}' and tablename like '${prefix}%' and tablename <> '${prefix}sequences' loop
    execute format('insert into %I select * from ${SCHEMA}.%I', name, '${prefix}' || name);
  end loop;
  for name in execute format('select name from ${SCHEMA}.%I where last_value is not null', '${prefix}sequences') loop
    execute format('select setval(%L, (select last_value from ${SCHEMA}.%I where name = %L))',
      quote_ident(name), '${prefix}sequences', name);
  end loop;`
  }
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

/** Snapshot names: what a test names a state (and a file of it). */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** The snapshots of one instance. Its directory (the repositories' copies) goes when the instance closes. */
export class Snapshots {
  private readonly kept = new Map<string, Snapshot>();
  private directory?: string;
  private counter = 0;

  constructor(
    private readonly db: Database,
    private readonly storages: Record<string, string>,
  ) {}

  list(): Snapshot[] {
    return [...this.kept.values()];
  }

  get(name: string): Snapshot | undefined {
    return this.kept.get(name);
  }

  /** Keeps the instance's state now under `name` (one of the same name is replaced). */
  async take(name: string): Promise<Snapshot> {
    // Prefixes are unique in the database: several instances may share a PostgreSQL database's schema.
    const prefix = `s${process.pid.toString(36)}${Date.now().toString(36)}${(this.counter++).toString(36)}_`;
    this.directory ??= mkdtempSync(join(tmpdir(), 'forgekit-snapshots-'));
    const directory = join(this.directory, prefix);
    await this.db.fork().transactional(async (em) => {
      await em.execute(COPY_TABLES(prefix));
    });
    for (const [storage, root] of Object.entries(this.storages)) copyDirectory(root, join(directory, storage));
    const replaced = this.kept.get(name);
    const snapshot: Snapshot = { name, created_at: new Date().toISOString(), prefix, directory };
    this.kept.set(name, snapshot);
    if (replaced) await this.drop(replaced);
    return snapshot;
  }

  /**
   * Puts the database's rows and the repositories back as `snapshot` kept them (none: empty); the statement is run by
   * `execute` (in a transaction that tells the process's caches).
   */
  async putBack(snapshot: Snapshot | undefined, execute: (statement: string) => Promise<void>): Promise<void> {
    await execute(RESTORE_TABLES(snapshot?.prefix));
    for (const [storage, root] of Object.entries(this.storages)) {
      rmSync(root, { recursive: true, force: true });
      if (snapshot) copyDirectory(join(snapshot.directory, storage), root);
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
    await this.db.rows.execute(DROP_TABLES(snapshot.prefix));
    rmSync(snapshot.directory, { recursive: true, force: true });
  }
}

/** A directory's files copied (an empty one made when it does not exist). */
function copyDirectory(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  let entries: string[] = [];
  try {
    entries = readdirSync(from);
  } catch {
    return;
  }
  for (const entry of entries) cpSync(join(from, entry), join(to, entry), { recursive: true });
}
