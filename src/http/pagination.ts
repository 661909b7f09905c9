import type { Request, Response } from 'express';
import { totalPages as countPages, type Page } from '../services/pagination.js';
import { withoutCredentials } from './credentials.js';

/** `Link` (complete URLs) and the six `X-*` headers of a list answer. */
export function setPaginationHeaders(req: Request, res: Response, origin: string, page: Page<unknown>): void {
  const totalPages = countPages(page);
  // Credentials in the query string are not repeated in the links.
  const url = withoutCredentials(new URL(req.originalUrl, origin));
  const link = (number: number, rel: string) => {
    url.searchParams.set('page', String(number));
    url.searchParams.set('per_page', String(page.perPage));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, totalPages), 'prev'));
  if (page.page < totalPages) links.push(link(page.page + 1, 'next'));
  links.push(link(1, 'first'), link(totalPages, 'last'));
  res.setHeader('Link', links.join(', '));
  res.setHeader('X-Total', String(page.total));
  res.setHeader('X-Total-Pages', String(totalPages));
  res.setHeader('X-Per-Page', String(page.perPage));
  res.setHeader('X-Page', String(page.page));
  res.setHeader('X-Next-Page', page.page < totalPages ? String(page.page + 1) : '');
  res.setHeader('X-Prev-Page', page.page > 1 ? String(Math.min(page.page - 1, totalPages)) : '');
}
