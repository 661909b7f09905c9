import { Type, type Static } from 'typebox';
import { BoundedText, DateTime, FILE_PATH_MAX, Int32, Nullable, REF_MAX } from './common.js';
import { UserWithEmail } from './merge-requests.js';
import { UserBasic } from './users.js';

const closed = { additionalProperties: false } as const;

/** The states a status may be given; the original's pipelines also know `created`, `skipped` and `manual`. */
export const CommitStatusState = Type.Union(
  [Type.Literal('pending'), Type.Literal('running'), Type.Literal('success'), Type.Literal('failed'), Type.Literal('canceled')],
  { description: '`pending`, `running`, `success`, `failed` or `canceled`' },
);
export type CommitStatusState = Static<typeof CommitStatusState>;

/** The author: null once the user who posted it is deleted (as the original shows a status whose user is gone). */
const author = Nullable(UserBasic);

/** A status an external system posted for a commit. */
export const CommitStatus = Type.Object(
  {
    id: Type.Integer(),
    sha: Type.String(),
    ref: Nullable(Type.String()),
    status: Type.String({ description: 'the status’s state' }),
    name: Type.String(),
    target_url: Nullable(Type.String()),
    description: Nullable(Type.String()),
    created_at: DateTime,
    started_at: Nullable(DateTime),
    finished_at: Nullable(DateTime),
    allow_failure: Type.Boolean(),
    coverage: Nullable(Type.Number()),
    author,
    /** The pipeline of the commit and ref the status belongs to (later clients read it). */
    pipeline_id: Type.Integer(),
  },
  { ...closed, title: 'CommitStatus' },
);
export type CommitStatus = Static<typeof CommitStatus>;

/** The longest status name, ref, URL and description: the original's string columns. */
const text = (description: string) => BoundedText({ description });

export const CreateCommitStatusInput = Type.Object({
  state: CommitStatusState,
  ref: Type.Optional(
    BoundedText({ maxLength: REF_MAX, description: 'the branch or tag (the first branch that contains the commit when omitted)' }),
  ),
  name: Type.Optional(text('the status’s label, to tell it from other systems’ (default `default`); wins over `context`')),
  context: Type.Optional(text('the same as `name`')),
  target_url: Type.Optional(text('where the status’s details are: an http or https URL')),
  description: Type.Optional(text('a short description')),
  coverage: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'the total code coverage, a percentage' })),
  pipeline_id: Type.Optional(Int32({ description: 'the pipeline of the commit to post to, when it has several (later clients)' })),
});
export type CreateCommitStatusInput = Static<typeof CreateCommitStatusInput>;

export const ListCommitStatusesQuery = Type.Object({
  ref: Type.Optional(BoundedText({ maxLength: REF_MAX, description: 'only the statuses of this branch or tag' })),
  stage: Type.Optional(text('only the statuses of this stage (posted statuses are in `external`)')),
  name: Type.Optional(text('only the statuses of this name')),
  all: Type.Optional(Type.Boolean({ description: 'every status posted, not only the latest of each name' })),
});
export type ListCommitStatusesQuery = Static<typeof ListCommitStatusesQuery>;

/** A comment on a commit: on one line of one of its files, or (path, line and line_type null) on the commit. */
export const CommitComment = Type.Object(
  {
    note: Type.String(),
    path: Nullable(Type.String()),
    line: Nullable(Type.Integer()),
    line_type: Nullable(Type.Union([Type.Literal('new'), Type.Literal('old')])),
    /** With its e-mail address and when it joined, as SPEC.md has a commit comment's author. */
    author: Nullable(UserWithEmail),
    created_at: DateTime,
  },
  { ...closed, title: 'CommitComment' },
);
export type CommitComment = Static<typeof CommitComment>;

/** The longest comment forgekit keeps: a million characters. */
export const NOTE_MAX = 1_000_000;

/** The body limit of posting a comment: a comment of NOTE_MAX characters, each escaped in JSON, and a little more. */
export const COMMENT_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * `path`, `line` and `line_type` may be null (go-gitlab sends them so when not given). `line` tries the integer
 * first, so that a null is read as 0, a line no diff has (a comment on the commit, as the original places a
 * null line), and a 0 is not read as a null (a missing line).
 */
export const CreateCommitCommentInput = Type.Object({
  note: Type.String({ maxLength: NOTE_MAX, description: 'the comment' }),
  path: Type.Optional(Nullable(BoundedText({ maxLength: FILE_PATH_MAX, description: 'the file the line is in' }))),
  line: Type.Optional(
    Type.Union([Int32(), Type.Null()], {
      description: 'the line: of the new file for `new`, of the old file for `old` (required with `path`)',
    }),
  ),
  line_type: Type.Optional(
    Nullable(
      Type.Union([Type.Literal('new'), Type.Literal('old')], { description: '`new` (default: an added line) or `old` (a removed line)' }),
    ),
  ),
});
export type CreateCommitCommentInput = Static<typeof CreateCommitCommentInput>;
