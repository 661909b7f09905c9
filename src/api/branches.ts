import {
  Branch,
  CreateBranchInput,
  ListBranchesQuery,
  ProtectBranchesInput,
  ProtectBranchInput,
  ProtectedBranch,
} from '../schemas/branches.js';
import { Accepted, accepted } from './projects.js';
import { projectItems, projectRoute } from './scoped.js';
import { BranchesService } from '../services/repository/branches.js';
import { defineModule } from './module.js';
import * as branchesSchemas from '../schemas/branches.js';
import * as repositoriesTables from '../db/entities/repositories.js';
import { referenceRules } from '../services/repository/reference-rules.js';

const branch = projectItems({ path: '/repository/branches', id: 'branch', service: (ctx) => new BranchesService(ctx) });

export const branches = {
  list: branch.list({
    summary: 'The branches of a project’s repository, by name',
    ability: 'download_code',
    input: ListBranchesQuery,
    list: Branch,
  }),
  get: branch.get({
    summary: 'A branch, with its last commit',
    ability: 'download_code',
    response: Branch,
  }),
  create: branch.create({
    summary: 'Create a branch at a branch, tag or commit (developers)',
    ability: 'push_code',
    input: CreateBranchInput,
    response: Branch,
  }),
  delete: branch.delete({
    summary: 'Delete a branch: not the default branch; a protected one only by those who may push to it',
    ability: 'push_code',
  }),
  protect: projectRoute({
    method: 'PUT',
    path: '/repository/branches/:branch/protect',
    summary: 'Protect a branch: maintainers only push and merge, unless developers are let (maintainers)',
    ability: 'admin_project',
    input: ProtectBranchInput,
    response: Branch,
    run: (ctx, { project, branch }, input) => new BranchesService(ctx).protect(project, branch, input),
  }),
  unprotect: projectRoute({
    method: 'PUT',
    path: '/repository/branches/:branch/unprotect',
    summary: 'Take a branch’s protection away (maintainers)',
    ability: 'admin_project',
    response: Branch,
    run: (ctx, { project, branch }) => new BranchesService(ctx).unprotect(project, branch),
  }),
  deleteMerged: projectRoute({
    method: 'DELETE',
    path: '/repository/merged_branches',
    summary: 'Delete every branch the default branch has merged, but protected ones (developers); answers 202 as the original',
    ability: 'push_code',
    status: 202,
    response: Accepted,
    run: (ctx, { project }) => accepted(new BranchesService(ctx).deleteMerged(project)),
  }),
};

/** Protections by name or pattern, as today's clients protect branches (the specification's era used .../protect). */
export const protectedBranches = {
  list: projectRoute({
    method: 'GET',
    path: '/protected_branches',
    summary: 'The project’s branch protections (maintainers)',
    auth: 'user',
    ability: 'admin_project',
    list: ProtectedBranch,
    run: (ctx, { project }, input) => new BranchesService(ctx).listProtected(project, input),
  }),
  get: projectRoute({
    method: 'GET',
    path: '/protected_branches/:name',
    summary: 'One protection, by its name or pattern (maintainers)',
    auth: 'user',
    scope: 'protectedBranch',
    ability: 'read_protected_branch',
    response: ProtectedBranch,
    run: async (ctx, { protection }) => new BranchesService(ctx).getProtected(protection),
  }),
  create: projectRoute({
    method: 'POST',
    path: '/protected_branches',
    summary: 'Protect a branch name or pattern (`release/*`): who may push and merge (maintainers); 409 when it is already',
    ability: 'admin_project',
    input: ProtectBranchesInput,
    response: ProtectedBranch,
    run: (ctx, { project }, input) => new BranchesService(ctx).createProtected(project, input),
  }),
  delete: projectRoute({
    method: 'DELETE',
    path: '/protected_branches/:name',
    summary: 'Take a protection away (maintainers)',
    scope: 'protectedBranch',
    ability: 'destroy_protected_branch',
    run: (ctx, { protection }) => new BranchesService(ctx).deleteProtected(protection),
  }),
};

export const branchesModule = defineModule({
  routes: { branches, protectedBranches },
  descriptions: {
    branches: 'Branches of a project’s repository: made, deleted and protected; the first branch of an empty repository is its default',
    protectedBranches: 'Protected branches by name or pattern, as today’s clients protect them: who may push and merge',
  },
  schemas: { ...branchesSchemas },
  entities: [repositoriesTables.ProtectedBranch],
  migrations: [() => import('../db/migrations/Migration20261124000000_repositories.js')],
  rules: referenceRules,
});
