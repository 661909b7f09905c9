import type { Migration } from '@mikro-orm/migrations';

/**
 * Statements the migrations repeat, worded as MikroORM's migration generator words them. A migration is history:
 * whatever helper it uses, it must keep adding the very statements it always added.
 */

/** A trigger as the entities declare one (`triggers` of defineEntity), its body frozen as the migration wrote it. */
export interface Trigger {
  name: string;
  timing: 'before' | 'after';
  events: ('insert' | 'update' | 'delete')[];
  forEach?: 'row' | 'statement';
  body: string;
}

/** Creates, or replaces, the function `<table>_<trigger>_fn` that runs a trigger's body. */
export function replaceTriggerFunction(migration: Migration, table: string, trigger: Pick<Trigger, 'name' | 'body'>) {
  migration.addSql(
    `create or replace function "${table}_${trigger.name}_fn"() returns trigger as $$ begin ${trigger.body} end; $$ language plpgsql;`,
  );
}

/** Creates a trigger on the table: its function, then the trigger that calls it. */
export function createTrigger(migration: Migration, table: string, trigger: Trigger) {
  replaceTriggerFunction(migration, table, trigger);
  const events = trigger.events.map((event) => event.toUpperCase()).join(' OR ');
  const forEach = (trigger.forEach ?? 'row').toUpperCase();
  migration.addSql(
    `create trigger "${trigger.name}" ${trigger.timing.toUpperCase()} ${events} on "${table}" for each ${forEach} execute function ` +
      `"${table}_${trigger.name}_fn"();`,
  );
}

/** Drops a trigger of the table and its function. */
export function dropTrigger(migration: Migration, table: string, name: string) {
  migration.addSql(`drop trigger if exists "${name}" on "${table}";`);
  migration.addSql(`drop function if exists "${table}_${name}_fn"();`);
}

/**
 * Adds the foreign key from `table.column` to the `id` of `references`, named `<table>_<column>_foreign`; `actions`
 * as in SQL (`on delete cascade`).
 */
export function addForeignKey(migration: Migration, table: string, column: string, references: string, actions: string) {
  migration.addSql(
    `alter table "${table}" add constraint "${table}_${column}_foreign" foreign key ("${column}") ` +
      `references "${references}" ("id") ${actions};`,
  );
}

/** Drops the foreign keys, each given as its table and column (`[table, column]`), in that order. */
export function dropForeignKeys(migration: Migration, keys: [table: string, column: string][]) {
  for (const [table, column] of keys) migration.addSql(`alter table "${table}" drop constraint "${table}_${column}_foreign";`);
}

/** Drops the tables, in that order, with whatever depends on them. */
export function dropTables(migration: Migration, tables: string[]) {
  for (const table of tables) migration.addSql(`drop table if exists "${table}" cascade;`);
}
