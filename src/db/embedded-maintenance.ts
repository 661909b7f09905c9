/**
 * PGlite runs PostgreSQL as a single-user process, without autovacuum's workers: left alone, its tables are never
 * analysed (the planner guesses every table's size, and picks plans for empty tables) and never vacuumed (dead rows
 * pile up, the files only grow, index-only scans read the heap). So forgekit does autovacuum's job on the embedded
 * database itself: every minute, each table past autovacuum's default thresholds gets the statement it needs, one
 * table at a time, so that requests wait for one table's statement at most.
 */

/** What maintenance needs of the database: PGlite's `query`, in this thread or through src/db/pglite-thread.ts. */
export interface EmbeddedClient {
  query<T>(text: string): Promise<{ rows: T[] }>;
}

/** What one pass did to a table. */
export interface TableMaintenance {
  table: string;
  vacuumed: boolean;
  analyzed: boolean;
}

/** autovacuum's naptime. */
const EVERY_MS = 60_000;

/**
 * The tables due, by PostgreSQL's default settings: vacuum past 50 dead rows plus 20 % of the table
 * (`autovacuum_vacuum_threshold`, `..._scale_factor`) or 1,000 inserted rows plus 20 % (`..._insert_threshold`,
 * which keeps the visibility map current for index-only scans); analyse past 50 changed rows plus 10 %.
 */
const DUE = `select quote_ident(s."schemaname") || '.' || quote_ident(s."relname") as "table", d."vacuum", d."analyze"
  from "pg_stat_user_tables" s join "pg_class" c on c."oid" = s."relid",
  lateral (select greatest(c."reltuples", 0) as "rows") r,
  lateral (select s."n_dead_tup" > 50 + 0.2 * r."rows" or s."n_ins_since_vacuum" > 1000 + 0.2 * r."rows" as "vacuum",
    s."n_mod_since_analyze" > 50 + 0.1 * r."rows" as "analyze") d
  where d."vacuum" or d."analyze"
  order by s."relname"`;

/** One pass: each table due vacuumed (and analysed with it) or analysed. */
export async function maintainTables(client: EmbeddedClient): Promise<TableMaintenance[]> {
  // The counts this backend has not yet written out (it writes them at most once a second) count too.
  await client.query(`select pg_stat_force_next_flush()`);
  const done: TableMaintenance[] = [];
  for (const due of (await client.query<{ table: string; vacuum: boolean; analyze: boolean }>(DUE)).rows) {
    await client.query(due.vacuum ? `vacuum (analyze) ${due.table}` : `analyze ${due.table}`);
    done.push({ table: due.table, vacuumed: due.vacuum, analyzed: true });
  }
  return done;
}

/**
 * Passes every minute until `stop()`, which waits for a pass under way (the database closes after it). A pass that
 * fails (the database closing under it) is left for the next: maintenance never fails a request.
 */
export function maintainEvery(client: EmbeddedClient, everyMs = EVERY_MS): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    // A pass still under way (a large table) is not joined by a second.
    running ??= maintainTables(client)
      .catch(() => {})
      .finally(() => (running = undefined));
  }, everyMs);
  // It never keeps the process alive on its own.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
