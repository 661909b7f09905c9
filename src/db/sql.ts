import { empty, join, raw, Sql, type RawValue } from 'sql-template-tag';

/**
 * Hand-written statements: `sql\`select ... where "id" = ${id}\`` keeps every value apart from the text, sent as a
 * bound parameter (db/rows.ts); a fragment nests in another (`sql\`... and ${condition}\``), its values with it.
 * Identifiers are never values: a statement names a table or a column only from a fixed set (`identifier`).
 */
export { empty, join, Sql };

/**
 * A statement or a fragment of one (the library's own tag, as a named function: its default export does not survive the CommonJS build).
 */
export const sql = (strings: readonly string[], ...values: readonly RawValue[]): Sql => new Sql(strings, values);

/** Fragments one after another (`, "a" = $1, "b" = $2`), or nothing for none (sql-template-tag's `join` refuses an empty list). */
export const concat = (fragments: readonly Sql[]): Sql => (fragments.length ? join(fragments, '') : empty);

/** SQL text fixed in forgekit's code (a comment, an alias): never anything a caller gave. */
export const fixedSql = (text: string): Sql => raw(text);

/** A table or column name from a fixed set, quoted: the only way a name that varies gets into a statement. */
export function identifier<const Name extends string>(name: Name, allowed: readonly Name[]): Sql {
  if (!allowed.includes(name)) throw new Error(`not an allowed identifier: ${name}`);
  return raw(`"${name}"`);
}

/** `asc` or `desc`, as a statement's order. */
export const direction = (order: 'asc' | 'desc'): Sql => raw(order === 'asc' ? 'asc' : 'desc');
