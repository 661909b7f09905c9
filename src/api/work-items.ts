import type { TObject } from 'typebox';
import {
  AwardEmoji,
  CreateAwardEmojiInput,
  CreateDiscussionInput,
  CreateNoteInput,
  Discussion,
  ListNotesQuery,
  Note,
  ReplyInput,
  SpentTimeInput,
  TimeEstimateInput,
  TimeStats,
  UpdateDiscussionNoteInput,
  UpdateNoteInput,
  WORK_ITEM_BODY_LIMIT,
} from '../schemas/work-items.js';
import type { Context } from '../services/context.js';
import { AwardEmojiService } from '../services/work-items/award-emoji.js';
import { DiscussionsService } from '../services/work-items/discussions.js';
import { NotesService } from '../services/work-items/notes.js';
import { TimeTrackingService } from '../services/work-items/time-tracking.js';
import { issueTarget, mergeRequestTarget, type WorkItemTarget } from '../services/work-items/work-item-target.js';
import type { HttpMethod, RouteSpec, Shape } from './route.js';
import { projectRoute } from './scoped.js';

/**
 * What issues and merge requests have alike, served alike (the original's Noteable, Awardable and TimeTrackable
 * concerns, which it mounts for each noteable type): notes, award emoji, discussions and time tracking, as route
 * families of a kind of work item.
 */

/** A kind of work item as its routes name it: where it is, its scopes, the abilities its routes need, its words. */
interface WorkItemKind<Path extends string, Scope extends 'issue' | 'mergeRequest'> {
  /** After the project's path: `/issues/:issue_iid`. */
  path: Path;
  scope: Scope;
  /** The scopes of a note on it and of an emoji awarded to it (or to its note). */
  noteScope: `${Scope}Note`;
  awardScope: `${Scope}Award`;
  /** `issue`, `merge request`: in the routes' summaries. */
  noun: string;
  abilities: { read: string; update: string; comment: string; award: string };
  target(resource: unknown): WorkItemTarget;
}

export const ISSUE = {
  path: '/issues/:issue_iid',
  scope: 'issue',
  noteScope: 'issueNote',
  awardScope: 'issueAward',
  noun: 'issue',
  abilities: { read: 'read_issue', update: 'update_issue', comment: 'create_issue_note', award: 'award_issue_emoji' },
  target: (issue) => issueTarget(issue as never),
} as const satisfies WorkItemKind<string, 'issue'>;

export const MERGE_REQUEST = {
  path: '/merge_requests/:merge_request_iid',
  scope: 'mergeRequest',
  noteScope: 'mergeRequestNote',
  awardScope: 'mergeRequestAward',
  noun: 'merge request',
  abilities: {
    read: 'read_merge_request',
    update: 'update_merge_request',
    comment: 'create_merge_request_note',
    award: 'award_merge_request_emoji',
  },
  target: (mergeRequest) => mergeRequestTarget(mergeRequest as never),
} as const satisfies WorkItemKind<string, 'mergeRequest'>;

/** One route of a family, as its definition is written for any kind. */
interface FamilyRoute<Input, Response, Item> {
  method: HttpMethod;
  /** After the work item's path. */
  path: string;
  summary: string;
  /**
   * The kind's ability on the work item; or, for a route naming one of its notes or awards (whose scope it then
   * has), `read_note`, `admin_note` or `destroy_award_emoji` on that one.
   */
  ability: 'read' | 'update' | 'comment' | 'award' | 'read_note' | 'admin_note' | 'destroy_award_emoji';
  /** Names one of the work item's notes or awards (by its scope's path parameter): the route has that scope. */
  names?: 'note' | 'award';
  input?: Input;
  response?: Response;
  list?: Item;
  status?: number;
  bodyLimit?: number;
  run(ctx: Context, target: WorkItemTarget, params: Record<string, never>, input: never): Promise<unknown>;
}

/** Work item calls always require authentication (SPEC.md Authentication 1), reads too. */
const AUTH = 'user' as const;

/** A family's route for a kind: under its path and scope, its ability the kind's, `run` given the work item. */
function familyRoute<
  const Path extends string,
  const Scope extends 'issue' | 'mergeRequest',
  const Sub extends string,
  Input extends TObject | undefined = undefined,
  Response extends Shape | undefined = undefined,
  Item extends Shape | undefined = undefined,
>(kind: WorkItemKind<Path, Scope>, route: FamilyRoute<Input, Response, Item> & { path: Sub }) {
  const { ability, names, run, ...rest } = route;
  const definition = {
    ...rest,
    path: `${kind.path}${route.path}`,
    scope: names === 'note' ? kind.noteScope : names === 'award' ? kind.awardScope : kind.scope,
    auth: AUTH,
    ability: ability in kind.abilities ? kind.abilities[ability as keyof typeof kind.abilities] : ability,
    run: (ctx: Context, params: Record<string, never>, input: never) => {
      const named = names && (params[names] as { noteable: WorkItemTarget } | { awardable: WorkItemTarget });
      const target = named ? ('noteable' in named ? named.noteable : named.awardable) : kind.target(params[kind.scope]);
      return run(ctx, target, params, input);
    },
  };
  // The kind's abilities apply to its scope's resource; the compiler cannot follow them through the kind.
  return projectRoute(definition as never) as unknown as RouteSpec<`/projects/:id${Path}${Sub}`, Scope, Input, Response, Item>;
}

/** Notes of a work item: listed, read, made, changed and deleted. */
export function noteRoutes<const Path extends string, const Scope extends 'issue' | 'mergeRequest'>(kind: WorkItemKind<Path, Scope>) {
  const notes = (ctx: Context) => new NotesService(ctx);
  return {
    list: familyRoute(kind, {
      method: 'GET',
      path: '/notes',
      summary: `The notes on a ${kind.noun}, comments and system notes, newest first unless asked otherwise`,
      ability: 'read',
      input: ListNotesQuery,
      list: Note,
      run: (ctx, target, _params, input) => notes(ctx).list(target, input),
    }),
    get: familyRoute(kind, {
      method: 'GET',
      path: '/notes/:note_id',
      summary: `One note on a ${kind.noun}`,
      ability: 'read',
      response: Note,
      run: (ctx, target, { note_id }) => notes(ctx).get(target, note_id),
    }),
    create: familyRoute(kind, {
      method: 'POST',
      path: '/notes',
      summary: `Comment on a ${kind.noun} (while its discussion is locked, project members only)`,
      ability: 'comment',
      input: CreateNoteInput,
      response: Note,
      bodyLimit: WORK_ITEM_BODY_LIMIT,
      run: (ctx, target, _params, input) => notes(ctx).create(target, input),
    }),
    update: familyRoute(kind, {
      method: 'PUT',
      path: '/notes/:note_id',
      summary: 'Change a comment (its author, maintainers)',
      ability: 'admin_note',
      names: 'note',
      input: UpdateNoteInput,
      response: Note,
      bodyLimit: WORK_ITEM_BODY_LIMIT,
      run: (ctx, _target, { note }, input) => notes(ctx).update(note, input),
    }),
    delete: familyRoute(kind, {
      method: 'DELETE',
      path: '/notes/:note_id',
      summary: 'Delete a comment (its author, maintainers)',
      ability: 'admin_note',
      names: 'note',
      run: (ctx, _target, { note }) => notes(ctx).delete(note),
    }),
  };
}

/** Emoji awarded to a work item and to the notes on it. */
export function awardEmojiRoutes<const Path extends string, const Scope extends 'issue' | 'mergeRequest'>(kind: WorkItemKind<Path, Scope>) {
  const awards = (ctx: Context) => new AwardEmojiService(ctx);
  const noun = kind.noun;
  return {
    list: familyRoute(kind, {
      method: 'GET',
      path: '/award_emoji',
      summary: `The emoji awarded to a ${noun}`,
      ability: 'read',
      list: AwardEmoji,
      run: (ctx, target, _params, input) => awards(ctx).list({ target }, input),
    }),
    get: familyRoute(kind, {
      method: 'GET',
      path: '/award_emoji/:award_id',
      summary: `One emoji awarded to a ${noun}`,
      ability: 'read',
      response: AwardEmoji,
      run: (ctx, target, { award_id }) => awards(ctx).get({ target }, award_id),
    }),
    create: familyRoute(kind, {
      method: 'POST',
      path: '/award_emoji',
      summary: `Award an emoji to a ${noun} (\`thumbsup\` and \`thumbsdown\` count as votes, never one’s own)`,
      ability: 'award',
      input: CreateAwardEmojiInput,
      response: AwardEmoji,
      run: (ctx, target, _params, input) => awards(ctx).create({ target }, input),
    }),
    delete: familyRoute(kind, {
      method: 'DELETE',
      path: '/award_emoji/:award_id',
      summary: `Take back one’s emoji from a ${noun} (administrators: anyone’s)`,
      ability: 'destroy_award_emoji',
      names: 'award',
      run: (ctx, _target, { award }) => awards(ctx).delete(award),
    }),
    listForNote: familyRoute(kind, {
      method: 'GET',
      path: '/notes/:note_id/award_emoji',
      summary: `The emoji awarded to a note on a ${noun}`,
      ability: 'read',
      list: AwardEmoji,
      run: (ctx, target, { note_id }, input) => awards(ctx).list({ target, noteId: note_id }, input),
    }),
    getForNote: familyRoute(kind, {
      method: 'GET',
      path: '/notes/:note_id/award_emoji/:award_id',
      summary: `One emoji awarded to a note on a ${noun}`,
      ability: 'read',
      response: AwardEmoji,
      run: (ctx, target, { note_id, award_id }) => awards(ctx).get({ target, noteId: note_id }, award_id),
    }),
    createForNote: familyRoute(kind, {
      method: 'POST',
      path: '/notes/:note_id/award_emoji',
      summary: `Award an emoji to a note on a ${noun}`,
      ability: 'award',
      input: CreateAwardEmojiInput,
      response: AwardEmoji,
      run: (ctx, target, { note_id }, input) => awards(ctx).create({ target, noteId: note_id }, input),
    }),
    deleteForNote: familyRoute(kind, {
      method: 'DELETE',
      path: '/notes/:note_id/award_emoji/:award_id',
      summary: `Take back one’s emoji from a note on a ${noun}`,
      ability: 'destroy_award_emoji',
      names: 'award',
      run: (ctx, _target, { award }) => awards(ctx).delete(award),
    }),
  };
}

/** Discussions of a work item: threads of notes, and notes of their own. */
export function discussionRoutes<const Path extends string, const Scope extends 'issue' | 'mergeRequest'>(kind: WorkItemKind<Path, Scope>) {
  const discussions = (ctx: Context) => new DiscussionsService(ctx);
  const noun = kind.noun;
  return {
    list: familyRoute(kind, {
      method: 'GET',
      path: '/discussions',
      summary: `The discussions of a ${noun}: threads and notes of their own, in the order they began`,
      ability: 'read',
      list: Discussion,
      run: (ctx, target, _params, input) => discussions(ctx).list(target, input),
    }),
    get: familyRoute(kind, {
      method: 'GET',
      path: '/discussions/:discussion_id',
      summary: `One discussion of a ${noun}, with its notes`,
      ability: 'read',
      response: Discussion,
      run: (ctx, target, { discussion_id }) => discussions(ctx).get(target, discussion_id),
    }),
    create: familyRoute(kind, {
      method: 'POST',
      path: '/discussions',
      summary: `Start a thread on a ${noun}`,
      ability: 'comment',
      input: CreateDiscussionInput,
      response: Discussion,
      bodyLimit: WORK_ITEM_BODY_LIMIT,
      run: (ctx, target, _params, input) => discussions(ctx).create(target, input),
    }),
    reply: familyRoute(kind, {
      method: 'POST',
      path: '/discussions/:discussion_id/notes',
      summary: 'Reply in a discussion (a note of its own becomes a thread)',
      ability: 'comment',
      input: ReplyInput,
      response: Note,
      bodyLimit: WORK_ITEM_BODY_LIMIT,
      run: (ctx, target, { discussion_id }, input) => discussions(ctx).reply(target, discussion_id, input),
    }),
    updateNote: familyRoute(kind, {
      method: 'PUT',
      path: '/discussions/:discussion_id/notes/:note_id',
      summary: 'Change a note of a discussion (`body`), or resolve it (`resolved`, a merge request’s)',
      // Changing it further depends on the input: the service asks for admin_note or resolve_merge_request_discussion.
      ability: 'read_note',
      names: 'note',
      input: UpdateDiscussionNoteInput,
      response: Note,
      bodyLimit: WORK_ITEM_BODY_LIMIT,
      run: (ctx, _target, { note }, input) => discussions(ctx).updateNote(note, input),
    }),
    deleteNote: familyRoute(kind, {
      method: 'DELETE',
      path: '/discussions/:discussion_id/notes/:note_id',
      summary: 'Delete a note of a discussion (its author, maintainers)',
      ability: 'admin_note',
      names: 'note',
      run: (ctx, _target, { note }) => new NotesService(ctx).delete(note),
    }),
  };
}

/** The time estimated for a work item and spent on it. */
export function timeTrackingRoutes<const Path extends string, const Scope extends 'issue' | 'mergeRequest'>(
  kind: WorkItemKind<Path, Scope>,
) {
  const time = (ctx: Context) => new TimeTrackingService(ctx);
  const noun = kind.noun;
  return {
    timeStats: familyRoute(kind, {
      method: 'GET',
      path: '/time_stats',
      summary: `The time estimated for a ${noun} and spent on it`,
      ability: 'read',
      response: TimeStats,
      run: (ctx, target) => time(ctx).stats(target),
    }),
    setTimeEstimate: familyRoute(kind, {
      method: 'POST',
      path: '/time_estimate',
      summary: `Estimate the time a ${noun} takes (\`3h30m\`, \`1w 2d\`)`,
      ability: 'update',
      input: TimeEstimateInput,
      response: TimeStats,
      status: 200,
      run: (ctx, target, _params, input) => time(ctx).setEstimate(target, input),
    }),
    resetTimeEstimate: familyRoute(kind, {
      method: 'POST',
      path: '/reset_time_estimate',
      summary: `Take a ${noun}’s estimate away`,
      ability: 'update',
      response: TimeStats,
      status: 200,
      run: (ctx, target) => time(ctx).resetEstimate(target),
    }),
    addSpentTime: familyRoute(kind, {
      method: 'POST',
      path: '/add_spent_time',
      summary: `Log time spent on a ${noun} (negative to take some back)`,
      ability: 'update',
      input: SpentTimeInput,
      response: TimeStats,
      run: (ctx, target, _params, input) => time(ctx).addSpent(target, input),
    }),
    resetSpentTime: familyRoute(kind, {
      method: 'POST',
      path: '/reset_spent_time',
      summary: `Take back all the time spent on a ${noun}`,
      ability: 'update',
      response: TimeStats,
      status: 200,
      run: (ctx, target) => time(ctx).resetSpent(target),
    }),
  };
}
