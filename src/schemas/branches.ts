import { Type, type Static } from 'typebox';
import { Commit } from './commits.js';
import { BoundedText, REF_MAX } from './common.js';

const closed = { additionalProperties: false } as const;

/** A branch, with its last commit and what its protection allows. */
export const Branch = Type.Object(
  {
    name: Type.String(),
    commit: Commit,
    /** Whether its commit is in the default branch (never for the default branch itself). */
    merged: Type.Boolean(),
    protected: Type.Boolean(),
    developers_can_push: Type.Boolean(),
    developers_can_merge: Type.Boolean(),
    /** Whether the caller may push to it. */
    can_push: Type.Boolean(),
    default: Type.Boolean(),
    web_url: Type.String(),
  },
  { ...closed, title: 'Branch' },
);
export type Branch = Static<typeof Branch>;

export const ListBranchesQuery = Type.Object({
  search: Type.Optional(BoundedText({ description: 'part of the name; `^name` for names starting with it, `name$` for names ending with it' })),
});
export type ListBranchesQuery = Static<typeof ListBranchesQuery>;

export const CreateBranchInput = Type.Object({
  branch: BoundedText({ maxLength: REF_MAX, description: 'the new branch’s name' }),
  ref: BoundedText({ maxLength: REF_MAX, description: 'the branch, tag or commit it starts at' }),
});
export type CreateBranchInput = Static<typeof CreateBranchInput>;

export const ProtectBranchInput = Type.Object({
  developers_can_push: Type.Optional(Type.Boolean({ description: 'developers may push to it (default false: maintainers only)' })),
  developers_can_merge: Type.Optional(Type.Boolean({ description: 'developers may merge into it (default false: maintainers only)' })),
});
export type ProtectBranchInput = Static<typeof ProtectBranchInput>;
