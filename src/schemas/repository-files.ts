import { Type, type Static } from 'typebox';
import { authorFields, CONTENT_MAX, Encoding, MESSAGE_MAX } from './commits.js';
import { BoundedText, REF_MAX } from './common.js';

const closed = { additionalProperties: false } as const;

/** A file at a ref: its content in Base64, the blob and the commits it comes from. */
export const RepositoryFile = Type.Object(
  {
    file_name: Type.String(),
    file_path: Type.String(),
    size: Type.Integer(),
    encoding: Type.Literal('base64'),
    content: Type.String(),
    content_sha256: Type.String(),
    ref: Type.String(),
    blob_id: Type.String(),
    commit_id: Type.String({ description: 'the commit the ref names' }),
    last_commit_id: Type.String({ description: 'the last commit that changed the file' }),
    execute_filemode: Type.Boolean(),
  },
  { ...closed, title: 'RepositoryFile' },
);
export type RepositoryFile = Static<typeof RepositoryFile>;

/**
 * What a file write answers: the file and the branch the commit went to (`file_name` as the specification says, `file_path` as clients read
 * it).
 */
export const FileWriteResult = Type.Object(
  { file_name: Type.String(), file_path: Type.String(), branch: Type.String() },
  { ...closed, title: 'FileWriteResult' },
);
export type FileWriteResult = Static<typeof FileWriteResult>;

const ref = BoundedText({ maxLength: REF_MAX, description: 'a branch, tag or commit' });
const branch = BoundedText({ maxLength: REF_MAX, description: 'the branch to commit to; made from `start_branch` when it is new' });
const startBranch = Type.Optional(BoundedText({ maxLength: REF_MAX, description: 'the branch to start from when `branch` is new' }));
const commitMessage = Type.String({ maxLength: MESSAGE_MAX });

export const GetFileQuery = Type.Object({ ref });
export type GetFileQuery = Static<typeof GetFileQuery>;

export const WriteFileInput = Type.Object({
  branch,
  content: Type.String({ maxLength: CONTENT_MAX }),
  commit_message: commitMessage,
  start_branch: startBranch,
  encoding: Type.Optional(Encoding),
  execute_filemode: Type.Optional(Type.Boolean({ description: 'make the file executable (or not)' })),
  last_commit_id: Type.Optional(
    BoundedText({ maxLength: 40, description: 'the file’s last known commit: the write fails if it changed since' }),
  ),
  ...authorFields,
});
export type WriteFileInput = Static<typeof WriteFileInput>;

export const DeleteFileInput = Type.Object({
  branch,
  commit_message: commitMessage,
  start_branch: startBranch,
  last_commit_id: Type.Optional(
    BoundedText({ maxLength: 40, description: 'the file’s last known commit: the delete fails if it changed since' }),
  ),
  ...authorFields,
});
export type DeleteFileInput = Static<typeof DeleteFileInput>;
