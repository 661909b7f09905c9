import { pushesToBranch, type BranchProtection, type ProjectInScope } from '../auth/abilities.js';
import { ACCESS_LEVELS, ProtectedBranch } from '../db/entities/index.js';
import { queryRows } from '../db/rows.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { historyOf } from '../git/history.js';
import { isValidReferenceName } from '../git/refs.js';
import { BRANCH_PREFIX, type Reference, type Repository } from '../git/repository.js';
import type { Branch, CreateBranchInput, ListBranchesQuery, ProtectBranchInput } from '../schemas/branches.js';
import type { Context } from './context.js';
import { pageOf, type Page, type PageQuery } from './pagination.js';
import { presentCommit } from './present/commits.js';
import { projectWebUrl } from './present/projects.js';
import { REFUSALS, writeRefusal } from './repository-refusals.js';
import { writeRepository } from './repository-writes.js';

/** A protection as the database has it: a name, or a pattern where `*` stands for any characters. */
type ProtectionRow = Pick<ProtectedBranch, 'name' | 'pushAccessLevel' | 'mergeAccessLevel'>;

const matches = (pattern: string, branch: string) =>
  pattern === branch || (pattern.includes('*') && new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(branch));

/**
 * Whether a name can be a branch's, by the original's rules: a valid git reference name that does not start
 * with `-`, is not `HEAD`, and does not name a reference itself (`refs/heads/...`).
 */
export const isValidBranchName = (name: string) => isValidReferenceName(name) && !name.startsWith('-') && name !== 'HEAD' && !name.startsWith('refs/');

export class BranchesService {
  constructor(private readonly ctx: Context) {}

  /** The project's protections, each with its name or pattern. */
  async protections(projectId: number): Promise<ProtectionRow[]> {
    return (await queryRows(
      (await this.ctx.view()).rows,
      `select "name", "push_access_level" as "pushAccessLevel", "merge_access_level" as "mergeAccessLevel" from "protected_branches" where "project_id" = ?`,
      [projectId],
    )) as ProtectionRow[];
  }

  /** What protects a branch: the strictest of the protections whose name or pattern matches it; null for none. */
  protectionOf(protections: ProtectionRow[], branch: string): ProtectionRow | null {
    const matching = protections.filter((protection) => matches(protection.name, branch));
    if (!matching.length) return null;
    return matching.reduce((strictest, protection) => (protection.pushAccessLevel > strictest.pushAccessLevel ? protection : strictest));
  }

  /** 400 unless the caller may push to the branch (its protection considered), as the original refuses a commit. */
  async checkPush(scoped: ProjectInScope, branch: string): Promise<void> {
    const protection = this.protectionOf(await this.protections(scoped.project.id), branch);
    if (!pushesToBranch(this.ctx.caller, scoped, protection)) throw new BadRequestError(REFUSALS.pushNotAllowed);
  }

  /** GET /projects/:id/repository/branches: by name, with `search`. */
  async list(scoped: ProjectInScope, query: ListBranchesQuery & PageQuery): Promise<Page<Branch>> {
    const repo = this.ctx.repositoryOf(scoped.project);
    let branches = (await repo.branches()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (query.search) branches = branches.filter(searchFilter(query.search));
    const page = pageOf(branches, query);
    return { ...page, items: await this.present(scoped, repo, page.items) };
  }

  /** GET /projects/:id/repository/branches/:branch */
  async get(scoped: ProjectInScope, name: string): Promise<Branch> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const oid = await repo.branch(name);
    if (!oid) throw new NotFoundError('Branch');
    return (await this.present(scoped, repo, [{ name, oid }]))[0];
  }

  /** POST /projects/:id/repository/branches: a new branch at a ref. */
  async create(scoped: ProjectInScope, input: CreateBranchInput): Promise<Branch> {
    if (!isValidBranchName(input.branch)) throw new BadRequestError(REFUSALS.branchNameInvalid);
    await this.checkPush(scoped, input.branch);
    const created = await writeRepository(this.ctx, scoped, async (repo) => {
      const oid = await repo.resolveCommit(input.ref);
      if (!oid) throw new BadRequestError(REFUSALS.invalidReference);
      if (await repo.branch(input.branch)) throw new BadRequestError(REFUSALS.branchExists);
      return { updates: [{ name: BRANCH_PREFIX + input.branch, old: null, new: oid }], result: { name: input.branch, oid } };
    }).catch((error: unknown) => {
      throw writeRefusal(error);
    });
    return (await this.present(scoped, this.ctx.repositoryOf(scoped.project), [created]))[0];
  }

  /**
   * DELETE /projects/:id/repository/branches/:branch: not the default branch, and a protected one only by those
   * its protection lets push, as the original refuses them.
   */
  async delete(scoped: ProjectInScope, name: string): Promise<void> {
    await writeRepository(this.ctx, scoped, async (repo) => {
      const oid = await repo.branch(name);
      if (!oid) throw new NotFoundError('Branch');
      if (name === (await repo.headBranch())) throw new BadRequestError(REFUSALS.removeDefaultBranch);
      await this.checkPush(scoped, name);
      return { updates: [{ name: BRANCH_PREFIX + name, old: oid, new: null }], result: undefined };
    }).catch((error: unknown) => {
      throw writeRefusal(error);
    });
  }

  /** PUT .../branches/:branch/protect (maintainers): protected, developers allowed to push and merge as asked. */
  async protect(scoped: ProjectInScope, name: string, input: ProtectBranchInput): Promise<Branch> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const oid = await repo.branch(name);
    if (!oid) throw new NotFoundError('Branch');
    const levelFor = (developers: boolean | undefined) => (developers ? ACCESS_LEVELS.developer : ACCESS_LEVELS.maintainer);
    await this.ctx.em.execute(
      `insert into "protected_branches" ("project_id", "name", "push_access_level", "merge_access_level", "created_at") values (?, ?, ?, ?, now())
       on conflict ("project_id", "name") do update set "push_access_level" = excluded."push_access_level", "merge_access_level" = excluded."merge_access_level"`,
      [scoped.project.id, name, levelFor(input.developers_can_push), levelFor(input.developers_can_merge)],
    );
    return (await this.present(scoped, repo, [{ name, oid }]))[0];
  }

  /** PUT .../branches/:branch/unprotect (maintainers): its own protection removed (a pattern's stays). */
  async unprotect(scoped: ProjectInScope, name: string): Promise<Branch> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const oid = await repo.branch(name);
    if (!oid) throw new NotFoundError('Branch');
    await this.ctx.em.nativeDelete(ProtectedBranch, { project: scoped.project.id, name });
    return (await this.present(scoped, repo, [{ name, oid }]))[0];
  }

  /** Branches in the answer's shape: protections read once, `merged` from the default branch's history (kept). */
  private async present(scoped: ProjectInScope, repo: Repository, branches: Reference[]): Promise<Branch[]> {
    const protections = await this.protections(scoped.project.id);
    const defaultBranch = await repo.headBranch();
    const defaultOid = defaultBranch ? await repo.branch(defaultBranch) : null;
    const merged = defaultOid && branches.some((branch) => branch.name !== defaultBranch) ? new Set(await historyOf(repo, defaultOid)) : new Set<string>();
    const projectUrl = projectWebUrl(scoped.project, scoped.namespace, this.ctx.baseUrl);
    return Promise.all(
      branches.map(async ({ name, oid }) => {
        const protection = this.protectionOf(protections, name);
        return {
          name,
          commit: presentCommit(await repo.readCommit(oid), projectUrl),
          merged: name !== defaultBranch && merged.has(oid),
          protected: protection !== null,
          developers_can_push: protection !== null && protection.pushAccessLevel <= ACCESS_LEVELS.developer,
          developers_can_merge: protection !== null && protection.mergeAccessLevel <= ACCESS_LEVELS.developer,
          can_push: pushesToBranch(this.ctx.caller, scoped, protection),
          default: name === defaultBranch,
          web_url: `${projectUrl}/tree/${name}`,
        };
      }),
    );
  }
}

/** `search` as the original reads it: `^x` starts with x, `x$` ends with it, otherwise contains it (any case). */
function searchFilter(search: string): (branch: Reference) => boolean {
  const lower = search.toLowerCase();
  if (lower.startsWith('^')) return (branch) => branch.name.toLowerCase().startsWith(lower.slice(1));
  if (lower.endsWith('$')) return (branch) => branch.name.toLowerCase().endsWith(lower.slice(0, -1));
  return (branch) => branch.name.toLowerCase().includes(lower);
}
