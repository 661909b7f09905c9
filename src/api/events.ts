import { Event, ListEventsQuery } from '../schemas/events.js';
import { defineRoute } from './route.js';
import { projectRoute } from './scoped.js';
import { EventsService } from '../services/activity/events.js';
import { defineModule } from './module.js';
import * as eventsSchemas from '../schemas/events.js';
import * as eventsTables from '../db/entities/events.js';

/** The Events API of the original's era: what people did, newest first, only what the caller may see. */
export const events = {
  list: defineRoute({
    method: 'GET',
    path: '/events',
    summary:
      'The caller’s own events on projects it may see: opened, closed, reopened and merged work items, comments, pushes, ' +
      'projects made, members joining and leaving (`action`, `target_type`, `before`, `after`, `sort`)',
    auth: 'user',
    readUser: true,
    input: ListEventsQuery,
    list: Event,
    run: (ctx, _params, input) => new EventsService(ctx).listOwn(input),
  }),
  listForUser: defineRoute({
    method: 'GET',
    path: '/users/:id/events',
    summary: 'A user’s events (by ID or username), those on projects the caller may see and of what it may read there',
    auth: 'public',
    readUser: true,
    scope: 'userByIdOrUsername',
    input: ListEventsQuery,
    list: Event,
    run: (ctx, { user }, input) => new EventsService(ctx).listForUser({ user }, input),
  }),
  listForProject: projectRoute({
    method: 'GET',
    path: '/events',
    summary: 'The project’s events the caller may read (a confidential issue’s only to those who may read it)',
    auth: 'public',
    ability: 'read_project',
    input: ListEventsQuery,
    list: Event,
    run: (ctx, { project }, input) => new EventsService(ctx).listForProject(project, input),
  }),
};

export const eventsModule = defineModule({
  routes: { events },
  descriptions: {
    events:
      'Events: what people did (opened, closed and merged work items, comments, pushes, projects made, members ' +
      'joining and leaving), newest first, of what the caller may see',
  },
  schemas: { ...eventsSchemas },
  entities: [eventsTables.DomainEvent, eventsTables.EventCursor],
  migrations: [() => import('../db/migrations/Migration20261128000000_events.js')],
});
