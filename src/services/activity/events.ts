import { can, type ProjectInScope } from '../../auth/abilities.js';
import type { User } from '../../db/entities/index.js';
import type { EVENT_TARGET_TYPES, Event, ListEventsQuery } from '../../schemas/events.js';
import { type Page, type PageQuery, pageRequest } from '../pagination.js';
import { presentEvent } from '../present/events.js';
import { Service } from '../service.js';
import { type EventFilter, type EventsSource, eventPage } from './event-store.js';

type EventTargetType = (typeof EVENT_TARGET_TYPES)[number];

/** The type of the targets the `target_type` filter's values stand for. */
const TARGET_TYPES: Record<EventTargetType, string> = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
};

/** A day given as a date or a timestamp, at its start (UTC). */
const dayStart = (day: string) => new Date(`${day.slice(0, 10)}T00:00:00Z`);

/** The start of the day after `day` (`YYYY-MM-DD`), UTC. */
const dayAfter = (day: string) => new Date(dayStart(day).getTime() + 24 * 60 * 60 * 1000);

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
    const filter: EventFilter = {
      action: query.action,
      targetType: query.target_type && TARGET_TYPES[query.target_type],
      createdBefore: query.before ? dayStart(query.before) : undefined,
      createdFrom: query.after ? dayAfter(query.after) : undefined,
    };
    const { total, rows } = await eventPage(view.rows, this.ctx.caller, this.ctx.today(), source, filter, query.sort ?? 'desc', {
      limit: window.perPage,
      offset: window.offset,
    });
    return { items: rows.map((row) => presentEvent(row, view)), total, page: window.page, perPage: window.perPage };
  }
}
