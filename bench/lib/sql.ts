/** What the bare handlers and the seeds run statements on. */

/** Rows as the ORM gets them: timestamps as PostgreSQL's text. */
export type Row = Record<string, any>;

export interface SqlClient {
  /** One statement, its values written into it as forgekit's ORM writes them (simple query protocol). */
  query(sql: string): Promise<Row[]>;
}
