/** What the bare handlers and the seeds run statements on. */
import type { Sql } from '../../src/db/sql.ts';

/** Rows as the ORM gets them: timestamps as PostgreSQL's text. */
// biome-ignore lint/suspicious/noExplicitAny: rows are read column by column as the statements name them, untyped on purpose
export type Row = Record<string, any>;

export interface SqlClient {
  /** One statement, written with the `sql` tag: its values sent apart as bound parameters (`$1`, ...), as forgekit sends its own. */
  query(statement: Sql): Promise<Row[]>;
}
