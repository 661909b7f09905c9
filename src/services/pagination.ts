import type { Page } from '../api/route.js';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** `page` from 1, `per_page` 20 by default and at most 100, as the original service clamps them. */
export function pageRequest(input: { page?: number; per_page?: number }): PageRequest {
  const page = input.page && input.page > 0 ? input.page : 1;
  const perPage = Math.min(input.per_page && input.per_page > 0 ? input.per_page : DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

export function toPage<T>(request: PageRequest, items: T[], total: number): Page<T> {
  return { items, total, page: request.page, perPage: request.perPage };
}
