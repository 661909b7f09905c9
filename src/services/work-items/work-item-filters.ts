import type { Sql } from '../../db/sql.js';
import type { ListIssuesQuery } from '../../schemas/issues.js';
import { likePattern } from '../search.js';
import type { WorkItemFilter } from './work-item-store.js';

/** What a list of issues or merge requests takes alike (the original's IssuableFinder params). */
export type WorkItemListQuery = Omit<ListIssuesQuery, 'state' | 'order_by' | 'sort' | 'confidential'>;

/** `None`/`Any` as the original reads them in filters, whatever their case. */
const noneOrAny = (value: string): 'none' | 'any' | undefined => {
  const lower = value.toLowerCase();
  return lower === 'none' ? 'none' : lower === 'any' ? 'any' : undefined;
};

const instant = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/**
 * The filters issues and merge requests share, from a list's query, for the caller (`userId`): visibility (`visible`,
 * always in SQL) and where they are; the state (`all` is none); `scope` (`created-by-me` or `created_by_me`,
 * `assigned-to-me`, `all`; `defaultScope` when not given); author, assignee, labels and milestone (`None`, `Any`, `No
 * Label`, `No Milestone` as the original reads them), the caller's reaction, iids, a search, and the dates.
 */
export function workItemFilter<State extends string>(
  query: WorkItemListQuery & { state?: State | 'all' },
  where: { visible: Sql; projectId?: number; groupId?: number },
  userId: number,
  defaultScope: 'created-by-me' | 'all',
): WorkItemFilter & { state?: State } {
  const filter: WorkItemFilter & { state?: State } = { ...where };
  if (query.state && query.state !== 'all') filter.state = query.state as State;
  const scope = (query.scope ?? defaultScope).replaceAll('_', '-');
  if (scope === 'created-by-me') filter.authorId = userId;
  if (scope === 'assigned-to-me') filter.assigneeId = userId;
  if (query.author_id !== undefined) filter.authorId = query.author_id;
  if (query.assignee_id !== undefined)
    filter.assigneeId = typeof query.assignee_id === 'number' ? query.assignee_id : noneOrAny(query.assignee_id);
  if (query.labels?.length) {
    const [only] = query.labels;
    const special = query.labels.length === 1 ? (only === 'No Label' || only === 'No+Label' ? 'none' : noneOrAny(only)) : undefined;
    filter.labels = special ?? query.labels;
  }
  if (query.milestone !== undefined) {
    const special = query.milestone === 'No Milestone' ? 'none' : noneOrAny(query.milestone);
    filter.milestone = special ?? query.milestone;
  }
  if (query.my_reaction_emoji !== undefined)
    filter.reaction = { userId, name: noneOrAny(query.my_reaction_emoji) ?? query.my_reaction_emoji };
  if (query.iids?.length) filter.iids = query.iids;
  if (query.search) filter.search = likePattern(query.search);
  filter.createdAfter = instant(query.created_after);
  filter.createdBefore = instant(query.created_before);
  filter.updatedAfter = instant(query.updated_after);
  filter.updatedBefore = instant(query.updated_before);
  return filter;
}
