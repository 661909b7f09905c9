import type { EntityName, FilterQuery, FindOptions } from '@mikro-orm/core';
import type { EntityManager } from '../db/orm.js';

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

interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** `page` from 1, `per_page` 20 by default and at most 100, as the original service clamps them. */
function pageRequest(input: PageQuery): PageRequest {
  const page = input.page && input.page > 0 ? input.page : 1;
  const perPage = Math.min(input.per_page && input.per_page > 0 ? input.per_page : DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * Every list's one query path: the rows that match, in order, one page of them and how many match in all.
 * `plainRows` reads the page as plain objects rather than managed entities, for lists that are only read: a
 * page of 100 entities costs more to create and track than its query. Each row has the entity's properties,
 * but a relation holds its key only, so it fits entities whose presenters read no relation.
 */
export async function findPage<Entity extends object>(
  em: EntityManager,
  entity: EntityName<Entity>,
  where: FilterQuery<NoInfer<Entity>>,
  orderBy: FindOptions<Entity>['orderBy'],
  query: PageQuery,
  options: { plainRows?: boolean } = {},
): Promise<Page<Entity>> {
  const { page, perPage, offset } = pageRequest(query);
  if (!options.plainRows) {
    const [items, total] = await em.findAndCount(entity, where, { orderBy, limit: perPage, offset });
    return { items, total, page, perPage };
  }
  const total = await em.count(entity, where);
  // The query builder's filter type is its own; the filter is the same one findAndCount takes.
  const rows = em.createQueryBuilder(entity).select('*').where(where as never).orderBy(orderBy ?? {}).limit(perPage).offset(offset);
  return { items: (await rows.execute('all', true)) as Entity[], total, page, perPage };
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
