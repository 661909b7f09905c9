import { Type, type Static } from 'typebox';
import { Commit, MESSAGE_MAX } from './commits.js';
import { BoundedText, ByteStream, FILE_PATH_MAX, Nullable, REF_MAX } from './common.js';

const closed = { additionalProperties: false } as const;

const ref = (description: string) => BoundedText({ maxLength: REF_MAX, description });

/** One file a commit or a comparison changes: git's unified hunks and the two sides' paths and modes. */
export const Diff = Type.Object(
  {
    diff: Type.String({
      description:
        'the unified hunks (`@@ -1,3 +1,4 @@` and the lines); `Binary files … differ` for binary content; empty for a rename, ' +
        'a mode change or a diff too large to show',
    }),
    new_path: Type.String(),
    old_path: Type.String(),
    a_mode: Nullable(Type.String({ description: 'the mode before (`100644`), `0` when the file is new' })),
    b_mode: Nullable(Type.String({ description: 'the mode after, `0` when the file is deleted' })),
    new_file: Type.Boolean(),
    renamed_file: Type.Boolean(),
    deleted_file: Type.Boolean(),
  },
  { ...closed, title: 'Diff' },
);
export type Diff = Static<typeof Diff>;

/** An entry of a tree: a directory (`tree`), a file (`blob`) or a submodule (`commit`). */
export const TreeObject = Type.Object(
  {
    id: Type.String({ description: 'the object ID' }),
    name: Type.String(),
    type: Type.Union([Type.Literal('tree'), Type.Literal('blob'), Type.Literal('commit')]),
    path: Type.String({ description: 'the full path from the top of the repository' }),
    mode: Type.String({ description: '`040000`, `100644`, `100755`, `120000` or `160000`' }),
  },
  { ...closed, title: 'TreeObject' },
);
export type TreeObject = Static<typeof TreeObject>;

export const ListTreeQuery = Type.Object({
  path: Type.Optional(BoundedText({ maxLength: FILE_PATH_MAX, description: 'the directory to list (the top by default)' })),
  ref: Type.Optional(ref('a branch, tag or commit (the default branch when omitted)')),
  recursive: Type.Optional(Type.Boolean({ description: 'everything below the directory, not only its entries' })),
});
export type ListTreeQuery = Static<typeof ListTreeQuery>;

/** A blob's content in Base64. */
export const RepositoryBlob = Type.Object(
  { size: Type.Integer(), encoding: Type.Literal('base64'), content: Type.String(), sha: Type.String() },
  { ...closed, title: 'RepositoryBlob' },
);
export type RepositoryBlob = Static<typeof RepositoryBlob>;

/** What changed from one ref to another: the commits and the files. */
export const Compare = Type.Object(
  {
    commit: Nullable(Commit),
    commits: Type.Array(Commit, { description: 'oldest first' }),
    diffs: Type.Array(Diff),
    compare_timeout: Type.Boolean({
      description: 'true when the diffs were cut short, as the original cuts them: past 100 files, or at 5,000 lines or 500 KB of diffs',
    }),
    compare_same_ref: Type.Boolean(),
  },
  { ...closed, title: 'Compare' },
);
export type Compare = Static<typeof Compare>;

export const CompareQuery = Type.Object({
  from: ref('the branch, tag or commit to compare from'),
  to: ref('the branch, tag or commit to compare to'),
  straight: Type.Optional(Type.Boolean({ description: 'compare `from` with `to` directly, not the merge base with `to` (default false)' })),
});
export type CompareQuery = Static<typeof CompareQuery>;

/**
 * The format an archive comes in: `tar.gz` (also `tgz`, `gz`), `tar.bz2` (also `tbz`, `tbz2`, `tb2`, `bz2`), `tar` or
 * `zip`; any other name is a `tar.gz`, as the original makes it.
 */
export const ArchiveFormat = BoundedText({
  maxLength: 16,
  description: '`tar.gz` (also `tgz`, `gz`), `tar.bz2` (also `tbz`, `tbz2`, `tb2`, `bz2`), `tar` or `zip`; any other: `tar.gz`',
});
export type ArchiveFormat = Static<typeof ArchiveFormat>;

const archiveSha = ref('the branch, tag or commit to archive (the default branch when omitted)');

export const ArchiveQuery = Type.Object({
  sha: Type.Optional(archiveSha),
  format: Type.Optional(ArchiveFormat),
});
export type ArchiveQuery = Static<typeof ArchiveQuery>;

/** The query of `archive.<format>`: the format is in the path. */
export const ArchiveWithFormatQuery = Type.Object({ sha: Type.Optional(archiveSha) });
export type ArchiveWithFormatQuery = Static<typeof ArchiveWithFormatQuery>;

/**
 * An archive, answered as its bytes, made as they are read (never whole in memory): the content type, the file
 * name it is downloaded as, and the stream.
 */
export const ArchiveFile = Type.Object(
  { content_type: Type.String(), file_name: Type.String(), data: ByteStream },
  { title: 'ArchiveFile' },
);
export type ArchiveFile = Static<typeof ArchiveFile>;

/**
 * A contributor: an author e-mail address of the default branch's history, the name of its newest commit and how
 * many commits it wrote. `additions` and `deletions` are 0, as the original of that era answers them.
 */
export const Contributor = Type.Object(
  { name: Type.String(), email: Type.String(), commits: Type.Integer(), additions: Type.Integer(), deletions: Type.Integer() },
  { ...closed, title: 'Contributor' },
);
export type Contributor = Static<typeof Contributor>;

export const ListContributorsQuery = Type.Object({
  order_by: Type.Optional(
    Type.Union([Type.Literal('name'), Type.Literal('email'), Type.Literal('commits')], {
      description: '`name`, `email` or `commits` (the default)',
    }),
  ),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: '`asc` (the default) or `desc`' })),
});
export type ListContributorsQuery = Static<typeof ListContributorsQuery>;

export const CherryPickInput = Type.Object({
  branch: ref('the branch to pick the commit onto'),
  message: Type.Optional(
    Type.String({
      maxLength: MESSAGE_MAX,
      description: 'the new commit’s message (the picked commit’s, with the line `(cherry picked from commit …)`, by default)',
    }),
  ),
  dry_run: Type.Optional(Type.Boolean({ description: 'later versions’ check without a commit: not offered, `true` is refused' })),
});
export type CherryPickInput = Static<typeof CherryPickInput>;
