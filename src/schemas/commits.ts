import { Type, type Static } from 'typebox';
import { BoundedText, DateTime, DateTimeInput, FILE_PATH_MAX, Nullable, REF_MAX } from './common.js';

const closed = { additionalProperties: false } as const;

/** The longest commit message, and the longest content of one file a write may carry (in characters). */
export const MESSAGE_MAX = 1024 * 1024;
export const CONTENT_MAX = 10 * 1024 * 1024;

/** The body limit of the routes that write files: a file of CONTENT_MAX base64-encoded, and a little more. */
export const FILE_WRITE_BODY_LIMIT = 16 * 1024 * 1024;

/** The fields every commit shows; dates carry the author's and the committer's own offsets. */
const commitFields = {
  id: Type.String({ description: 'the commit’s full object ID' }),
  short_id: Type.String(),
  title: Type.String({ description: 'the first line of the message' }),
  message: Type.String(),
  author_name: Type.String(),
  author_email: Type.String(),
  authored_date: DateTime,
  committer_name: Type.String(),
  committer_email: Type.String(),
  committed_date: DateTime,
  created_at: DateTime,
  parent_ids: Type.Array(Type.String()),
  web_url: Type.String(),
};

export const Commit = Type.Object(commitFields, { ...closed, title: 'Commit' });
export type Commit = Static<typeof Commit>;

export const CommitStats = Type.Object(
  { additions: Type.Integer(), deletions: Type.Integer(), total: Type.Integer() },
  { ...closed, title: 'CommitStats' },
);
export type CommitStats = Static<typeof CommitStats>;

/** The pipeline the commit's statuses make: the latest one of the commit. */
export const PipelineReference = Type.Object(
  { id: Type.Integer(), ref: Nullable(Type.String()), sha: Type.String(), status: Type.String() },
  { ...closed, title: 'PipelineReference' },
);

/** A commit made by a batch commit or a cherry-pick: with its stats and status. */
export const CommitWithStats = Type.Object(
  { ...commitFields, stats: CommitStats, status: Nullable(Type.String()) },
  { ...closed, title: 'CommitWithStats' },
);
export type CommitWithStats = Static<typeof CommitWithStats>;

/** A single commit: with its stats, status and last pipeline. */
export const CommitDetail = Type.Object(
  {
    ...commitFields,
    stats: CommitStats,
    status: Nullable(Type.String()),
    last_pipeline: Nullable(PipelineReference),
    project_id: Type.Integer(),
  },
  { ...closed, title: 'CommitDetail' },
);
export type CommitDetail = Static<typeof CommitDetail>;

/** A list item: with its stats when `with_stats` asks for them. */
export const CommitListItem = Type.Object({ ...commitFields, stats: Type.Optional(CommitStats) }, { ...closed, title: 'CommitListItem' });
export type CommitListItem = Static<typeof CommitListItem>;

const ref = (description: string) => BoundedText({ maxLength: REF_MAX, description });

export const ListCommitsQuery = Type.Object({
  ref_name: Type.Optional(ref('a branch, tag or commit (the default branch when omitted)')),
  since: Type.Optional({ ...DateTimeInput, description: 'commits committed at or after this time' }),
  until: Type.Optional({ ...DateTimeInput, description: 'commits committed at or before this time' }),
  path: Type.Optional(BoundedText({ maxLength: FILE_PATH_MAX, description: 'only commits that changed this file or directory' })),
  all: Type.Optional(Type.Boolean({ description: 'every commit of the repository, not only those of one ref' })),
  with_stats: Type.Optional(Type.Boolean({ description: 'with each commit’s stats' })),
  first_parent: Type.Optional(Type.Boolean({ description: 'follow only the first parent of merges' })),
});
export type ListCommitsQuery = Static<typeof ListCommitsQuery>;

export const Encoding = Type.Union([Type.Literal('text'), Type.Literal('base64')], { description: '`text` (default) or `base64`' });

/** One action of a batch commit. */
export const CommitAction = Type.Object({
  action: Type.Union([Type.Literal('create'), Type.Literal('delete'), Type.Literal('move'), Type.Literal('update'), Type.Literal('chmod')]),
  file_path: BoundedText({ maxLength: FILE_PATH_MAX, description: 'the file’s full path' }),
  previous_path: Type.Optional(BoundedText({ maxLength: FILE_PATH_MAX, description: 'where a moved file was' })),
  content: Type.Optional(
    Type.String({ maxLength: CONTENT_MAX, description: 'required but for `delete` and `chmod`; optional for `move`' }),
  ),
  encoding: Type.Optional(Encoding),
  last_commit_id: Type.Optional(
    BoundedText({ maxLength: 40, description: 'the file’s last known commit: the action fails if it changed since' }),
  ),
  execute_filemode: Type.Optional(Type.Boolean({ description: '`chmod`: executable or not' })),
});
export type CommitAction = Static<typeof CommitAction>;

/** Who the commit says wrote it (the caller when omitted). */
const authorFields = {
  author_email: Type.Optional(BoundedText({ description: 'the author’s e-mail address (the caller’s by default)' })),
  author_name: Type.Optional(BoundedText({ description: 'the author’s name (the caller’s by default)' })),
};

export const CreateCommitInput = Type.Object({
  branch: ref('the branch to commit to; with `start_branch` or `start_sha`, it is made'),
  commit_message: Type.String({ maxLength: MESSAGE_MAX }),
  actions: Type.Array(CommitAction, { maxItems: 1000 }),
  start_branch: Type.Optional(ref('the branch to start from when `branch` is new')),
  start_sha: Type.Optional(BoundedText({ maxLength: 40, description: 'the commit to start from when `branch` is new' })),
  stats: Type.Optional(Type.Boolean({ description: 'answer with the stats (default true)' })),
  ...authorFields,
});
export type CreateCommitInput = Static<typeof CreateCommitInput>;

export const GetCommitQuery = Type.Object({ stats: Type.Optional(Type.Boolean({ description: 'answer with the stats (default true)' })) });
export type GetCommitQuery = Static<typeof GetCommitQuery>;

export { authorFields, ref as refParameter };
