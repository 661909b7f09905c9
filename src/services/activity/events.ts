import { can, type ProjectInScope } from '../../auth/abilities.js';
import type { User } from '../../db/entities/index.js';
import { EVENT_ACTIONS, type EventAction } from '../../events/kinds.js';
import type { Event, ListEventsQuery } from '../../schemas/events.js';
import { type Page, type PageQuery, pageRequest } from '../pagination.js';
import { presentEvent } from '../present/events.js';
import { Service } from '../service.js';
import { type EventFilter, type EventsSource, eventPage } from './event-store.js';

/** The `target_type` filter's values, as the original names them, and the type each stands for. */
const TARGET_TYPES = new Map(
  Object.entries({
    issue: 'Issue',
    milestone: 'Milestone',
    merge_request: 'MergeRequest',
    note: 'Note',
    project: 'Project',
    snippet: 'Snippet',
    user: 'User',
  }),
);

/** The start of the day after `day` (`YYYY-MM-DD`), UTC. */
const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 24 * 60 * 60 * 1000);

/**
 * The Events API of the original's era: what people did, read from the one record of what happens. Only events the
 * original shows (opening, closing, merging, comments, pushes, projects made, members joining and leaving), of
 * projects the caller may see, and of those only what it may read (a confidential issue's to those who may read it).
 */
export class EventsService extends Service {
  /** GET /events: the caller's own events. */
  listOwn(query: ListEventsQuery & PageQuery): Promise<Page<Event>> {
    return this.list({ authorId: this.ctx.currentUser.id }, query);
  }

  /** GET /users/:id/events: a user's events, those the caller may see. */
  listForUser(scoped: { user: User }, query: ListEventsQuery & PageQuery): Promise<Page<Event>> {
    return this.list({ authorId: scoped.user.id }, query);
  }

  /** GET /projects/:id/events: the project's events the caller may see. */
  listForProject(project: ProjectInScope, query: ListEventsQuery & PageQuery): Promise<Page<Event>> {
    const caller = this.ctx.caller;
    return this.list(
      {
        projectId: project.project.id,
        readsCode: can(caller, 'download_code', project),
        readsConfidential: can(caller, 'read_confidential_issues', project),
        readsMergeRequests: can(caller, 'read_merge_requests', project),
      },
      query,
    );
  }

  private async list(source: EventsSource, query: ListEventsQuery & PageQuery): Promise<Page<Event>> {
    const view = await this.ctx.view();
    const window = pageRequest(query);
    // As the original: an action or a target type it does not know filters nothing.
    const action = query.action?.toLowerCase();
    const filter: EventFilter = {
      action: EVENT_ACTIONS.includes(action as EventAction) ? (action as EventAction) : undefined,
      targetType: TARGET_TYPES.get(query.target_type?.toLowerCase() ?? ''),
      createdBefore: query.before ? new Date(`${query.before}T00:00:00Z`) : undefined,
      createdFrom: query.after ? dayAfter(query.after) : undefined,
    };
    const { total, rows } = await eventPage(view.rows, this.ctx.caller, source, filter, query.sort ?? 'desc', {
      limit: window.perPage,
      offset: window.offset,
    });
    return { items: rows.map((row) => presentEvent(row, view)), total, page: window.page, perPage: window.perPage };
  }
}
