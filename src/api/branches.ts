import { Branch, CreateBranchInput, ListBranchesQuery, ProtectBranchesInput, ProtectBranchInput, ProtectedBranch } from '../schemas/branches.js';
import { Accepted } from './projects.js';
import { defineRoute } from './route.js';

export const branches = {
  list: defineRoute({
    method: 'GET', path: '/projects/:id/repository/branches', summary: 'The branches of a project’s repository, by name', auth: 'public',
    scope: 'project', ability: 'download_code', input: ListBranchesQuery, list: Branch,
    run: (ctx, { project }, input) => ctx.branches.list(project, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/projects/:id/repository/branches/:branch', summary: 'A branch, with its last commit', auth: 'public',
    scope: 'project', ability: 'download_code', response: Branch,
    run: (ctx, { project, branch }) => ctx.branches.get(project, branch),
  }),
  create: defineRoute({
    method: 'POST', path: '/projects/:id/repository/branches', summary: 'Create a branch at a branch, tag or commit (developers)', auth: 'user',
    scope: 'project', ability: 'push_code', input: CreateBranchInput, response: Branch,
    run: (ctx, { project }, input) => ctx.branches.create(project, input),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/projects/:id/repository/branches/:branch', summary: 'Delete a branch: not the default branch; a protected one only by those who may push to it', auth: 'user',
    scope: 'project', ability: 'push_code',
    run: (ctx, { project, branch }) => ctx.branches.delete(project, branch),
  }),
  protect: defineRoute({
    method: 'PUT', path: '/projects/:id/repository/branches/:branch/protect', summary: 'Protect a branch: maintainers only push and merge, unless developers are let (maintainers)', auth: 'user',
    scope: 'project', ability: 'admin_project', input: ProtectBranchInput, response: Branch,
    run: (ctx, { project, branch }, input) => ctx.branches.protect(project, branch, input),
  }),
  unprotect: defineRoute({
    method: 'PUT', path: '/projects/:id/repository/branches/:branch/unprotect', summary: 'Take a branch’s protection away (maintainers)', auth: 'user',
    scope: 'project', ability: 'admin_project', response: Branch,
    run: (ctx, { project, branch }) => ctx.branches.unprotect(project, branch),
  }),
  deleteMerged: defineRoute({
    method: 'DELETE', path: '/projects/:id/repository/merged_branches', summary: 'Delete every branch the default branch has merged, but protected ones (developers); answers 202 as the original', auth: 'user',
    scope: 'project', ability: 'push_code', status: 202, response: Accepted,
    run: async (ctx, { project }) => {
      await ctx.branches.deleteMerged(project);
      return { message: '202 Accepted' as const };
    },
  }),
};

/** Protections by name or pattern, as today's clients protect branches (the specification's era used .../protect). */
export const protectedBranches = {
  list: defineRoute({
    method: 'GET', path: '/projects/:id/protected_branches', summary: 'The project’s branch protections (maintainers)', auth: 'user',
    scope: 'project', ability: 'admin_project', list: ProtectedBranch,
    run: (ctx, { project }, input) => ctx.branches.listProtected(project, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/projects/:id/protected_branches/:name', summary: 'One protection, by its name or pattern (maintainers)', auth: 'user',
    scope: 'protectedBranch', ability: 'read_protected_branch', response: ProtectedBranch,
    run: async (ctx, { protection }) => ctx.branches.getProtected(protection),
  }),
  create: defineRoute({
    method: 'POST', path: '/projects/:id/protected_branches', summary: 'Protect a branch name or pattern (`release/*`): who may push and merge (maintainers); 409 when it is already', auth: 'user',
    scope: 'project', ability: 'admin_project', input: ProtectBranchesInput, response: ProtectedBranch,
    run: (ctx, { project }, input) => ctx.branches.createProtected(project, input),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/projects/:id/protected_branches/:name', summary: 'Take a protection away (maintainers)', auth: 'user',
    scope: 'protectedBranch', ability: 'destroy_protected_branch',
    run: (ctx, { protection }) => ctx.branches.deleteProtected(protection),
  }),
};
