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
  search: Type.Optional(
    BoundedText({ description: 'part of the name; `^name` for names starting with it, `name$` for names ending with it' }),
  ),
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

/** Who may push to or merge into a protected branch: 0 no one, 30 developers and maintainers, 40 maintainers. */
export const ProtectionLevel = Type.Union([Type.Literal(0), Type.Literal(30), Type.Literal(40)], {
  description: '0 no one, 30 developers and maintainers, 40 maintainers',
});

const AccessLevelEntry = Type.Object({ access_level: Type.Integer(), access_level_description: Type.String() }, closed);

/** A protection as `/projects/:id/protected_branches` (what today's clients use) shows it. */
export const ProtectedBranch = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String({ description: 'a branch name, or a pattern with `*`' }),
    push_access_levels: Type.Array(AccessLevelEntry),
    merge_access_levels: Type.Array(AccessLevelEntry),
    allow_force_push: Type.Boolean(),
    code_owner_approval_required: Type.Boolean(),
  },
  { ...closed, title: 'ProtectedBranch' },
);
export type ProtectedBranch = Static<typeof ProtectedBranch>;

export const ProtectBranchesInput = Type.Object({
  name: BoundedText({ description: 'the branch name, or a pattern with `*` (`release/*`)' }),
  push_access_level: Type.Optional(ProtectionLevel),
  merge_access_level: Type.Optional(ProtectionLevel),
});
export type ProtectBranchesInput = Static<typeof ProtectBranchesInput>;
