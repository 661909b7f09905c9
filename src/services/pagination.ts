import type { EntityName, FilterQuery, FindOptions } from '@mikro-orm/core';
import type { EntityManager } from '../db/orm.js';
import { queryRows, rowsAs } from '../db/rows.js';
import { Sql } from '../db/sql.js';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** One page of a list, as services return it: the page's items and the size of the whole list. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  perPage: number;
}

/** What every list takes. */
export interface PageQuery {
  page?: number;
  per_page?: number;
}

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** `page` from 1, `per_page` 20 by default and at most 100, as the original service clamps them. */
export function pageRequest(input: PageQuery): PageRequest {
  const page = input.page && input.page > 0 ? input.page : 1;
  const perPage = Math.min(input.per_page && input.per_page > 0 ? input.per_page : DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * Every list's one query path: the rows that match, in order, one page of them and how many match in all.
 * `plainRows` reads the page as plain objects rather than managed entities, for lists that are only read: a
 * page of 100 entities costs more to create and track than its query. Each row has the entity's properties,
 * but a relation holds its key only, so it fits entities whose presenters read no relation. With `fields`,
 * a plain row has those properties only: for a presenter that reads no more (converting 100 rows' columns
 * costs more than the query too).
 */
export async function findPage<Entity extends object>(
  em: EntityManager,
  entity: EntityName<Entity>,
  where: FilterQuery<NoInfer<Entity>>,
  orderBy: FindOptions<Entity>['orderBy'],
  query: PageQuery,
  options: { plainRows?: boolean; fields?: readonly string[] } = {},
): Promise<Page<Entity>> {
  const { page, perPage, offset } = pageRequest(query);
  if (!options.plainRows) {
    const [items, total] = await em.findAndCount(entity, where, { orderBy, limit: perPage, offset });
    return { items, total, page, perPage };
  }
  const statements = pageStatements(em, entity, where, orderBy, options.fields, perPage, offset);
  // At once: on PostgreSQL two connections, on PGlite one wait in its queue instead of two.
  const [[{ count }], rows] = await Promise.all([queryRows(em, statements.count), queryRows(em, statements.rows)]);
  return { items: rowsAs(em, entity, rows), total: Number(count), page, perPage };
}

/**
 * One page of a list that is not in the database (a repository's branches, tags, commits): the whole list is
 * known, or its length is, and `items` gives the page's part of it.
 */
export function pageOf<T>(all: readonly T[], query: PageQuery): Page<T> {
  const { page, perPage, offset } = pageRequest(query);
  return { items: all.slice(offset, offset + perPage), total: all.length, page, perPage };
}

interface PageStatements {
  count: Sql;
  rows: Sql;
}

/** A statement the ORM's query builder wrote (`?` for each value), its values to be bound (db/sql.ts). */
function builtStatement(builder: { getQuery(): string; getParams(): readonly unknown[] }): Sql {
  const strings = builder.getQuery().split('?');
  const values = builder.getParams();
  // The builder writes values as placeholders only: one more piece of text than values.
  if (strings.length !== values.length + 1) throw new Error('a built statement has placeholders and values that do not match');
  return new Sql(strings, values);
}

/**
 * The statements of plain-row pages, kept by what they ask for (per ORM: its metadata): building them costs
 * more than running them, and clients ask for the same pages again and again.
 */
const keptStatements = new WeakMap<object, Map<string, PageStatements>>();
const MAX_KEPT_STATEMENTS = 1000;

function pageStatements<Entity extends object>(
  em: EntityManager,
  entity: EntityName<Entity>,
  where: FilterQuery<Entity>,
  orderBy: FindOptions<Entity>['orderBy'],
  fields: readonly string[] | undefined,
  limit: number,
  offset: number,
): PageStatements {
  const kept = keptStatements.get(em.getMetadata()) ?? new Map<string, PageStatements>();
  keptStatements.set(em.getMetadata(), kept);
  // A filter holding anything but JSON values (a subquery, an undefined) is built each time.
  const asked = [em.getMetadata().get(entity).className, where, orderBy ?? null, fields ?? null, limit, offset];
  const key = isJsonValue(asked) ? JSON.stringify(asked) : undefined;
  const found = key === undefined ? undefined : kept.get(key);
  if (found) return found;
  // The query builder's filter type is its own; the filter is the same one em.find takes.
  const statements = {
    count: builtStatement(
      em
        .createQueryBuilder(entity)
        .count()
        .where(where as never),
    ),
    rows: builtStatement(
      em
        .createQueryBuilder(entity)
        .select((fields ?? '*') as never)
        .where(where as never)
        .orderBy(orderBy ?? {})
        .limit(limit)
        .offset(offset),
    ),
  };
  if (key !== undefined) {
    kept.set(key, statements);
    if (kept.size > MAX_KEPT_STATEMENTS) kept.delete(kept.keys().next().value!);
  }
  return statements;
}

/** Plain objects, arrays, strings, numbers, booleans, null and dates only: what JSON.stringify tells apart. */
function isJsonValue(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (depth > 16 || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.getOwnPropertySymbols(value).length > 0) return false;
  return Object.values(value).every((item) => isJsonValue(item, depth + 1));
}

export const totalPages = (page: Page<unknown>): number => Math.max(1, Math.ceil(page.total / page.perPage));

/**
 * A list as the in-process API answers it: the page's items as an array that also tells the size of the
 * whole list (`total`, `totalPages`) and which page it is (`page`, `perPage`), as HTTP's X-* headers do.
 */
export type ListResult<T> = T[] & { readonly total: number; readonly totalPages: number; readonly page: number; readonly perPage: number };

export function listResult<T>(page: Page<T>): ListResult<T> {
  // Not enumerable: the array compares, spreads and serialises as the plain list of items.
  return Object.defineProperties([...page.items], {
    total: { value: page.total },
    totalPages: { value: totalPages(page) },
    page: { value: page.page },
    perPage: { value: page.perPage },
  }) as ListResult<T>;
}
