import { can, pushesToBranch, type ProjectInScope, type ProtectedBranchInScope } from '../../auth/abilities.js';
import { developersLevel, letsDevelopers, MAINTAINERS_ONLY, protectionDescription } from '../../auth/levels.js';
import { ProtectedBranch } from '../../db/entities/index.js';
import { BadRequestError, ConflictError } from '../../errors.js';
import { historySetOf } from '../../git/history.js';
import { DEFAULT_BRANCH } from '../../git/store.js';
import { BRANCH_PREFIX, type Reference, type Repository } from '../../git/repository.js';
import type {
  Branch,
  CreateBranchInput,
  ListBranchesQuery,
  ProtectBranchesInput,
  ProtectBranchInput,
  ProtectedBranch as ProtectedBranchShape,
} from '../../schemas/branches.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentCommit } from '../present/commits.js';
import { projectWebUrl } from '../present/projects.js';
import { insertProtection, protectBranch } from './protected-branch-store.js';
import { checkPush, isValidBranchName, projectProtections, protectionOf } from './branch-protection.js';
import { REFUSALS, writeRefusal } from './refusals.js';
import { writeRepository } from './writes.js';
import { byName, RefsService, searchFilter } from './refs.js';
import { CommitsService } from './commits.js';

export class BranchesService extends RefsService<Branch> {
  protected readonly kind = 'Branch';

  protected find(repo: Repository, name: string): Promise<string | null> {
    return repo.branch(name);
  }

  /** GET /projects/:id/repository/branches: by name, with `search`. */
  async list(scoped: ProjectInScope, query: ListBranchesQuery & PageQuery): Promise<Page<Branch>> {
    const repo = this.ctx.repositoryOf(scoped.project);
    let branches = (await repo.branches()).sort(byName);
    if (query.search) branches = branches.filter(searchFilter(query.search));
    return this.presentPage(scoped, repo, branches, query);
  }

  /**
   * POST /projects/:id/repository/branches: a new branch at a ref. In an empty repository the default branch is
   * made first, with an empty README.md committed by the caller ("Add README.md"), as the original does: the
   * new branch can then start from it. A refused call is undone whole, the README with it (the original keeps it).
   */
  async create(scoped: ProjectInScope, input: CreateBranchInput): Promise<Branch> {
    if (!isValidBranchName(input.branch)) throw new BadRequestError(REFUSALS.branchNameInvalid);
    const repository = this.ctx.repositoryOf(scoped.project);
    if ((await repository.branches()).length === 0) {
      const branch = (await repository.headBranch()) ?? DEFAULT_BRANCH;
      await new CommitsService(this.ctx).firstCommit(scoped, { branch, message: 'Add README.md', path: 'README.md', content: '' });
    }
    await checkPush(this.ctx, scoped, input.branch);
    const created = await writeRepository(this.ctx, scoped, async (repo) => {
      const oid = await repo.resolveCommit(input.ref);
      if (!oid) throw new BadRequestError(REFUSALS.invalidReference);
      if (await repo.branch(input.branch)) throw new BadRequestError(REFUSALS.branchExists);
      return { updates: [{ name: BRANCH_PREFIX + input.branch, old: null, new: oid }], result: { name: input.branch, oid } };
    }).catch((error: unknown) => {
      throw writeRefusal(error);
    });
    return this.presentOne(scoped, this.ctx.repositoryOf(scoped.project), created);
  }

  /**
   * DELETE /projects/:id/repository/branches/:branch: not the default branch, and a protected one only by those
   * its protection lets push, as the original refuses them.
   */
  async delete(scoped: ProjectInScope, name: string): Promise<void> {
    await writeRepository(this.ctx, scoped, async (repo) => {
      const oid = await this.oidOf(repo, name);
      if (name === (await repo.headBranch())) throw new BadRequestError(REFUSALS.removeDefaultBranch);
      // A protected branch goes by its maintainers' hands only, whoever its protection lets push.
      const protected_ = protectionOf(await projectProtections(this.ctx, scoped.project.id), name) !== null;
      if (protected_ && !can(this.ctx.caller, 'push_to_delete_protected_branch', scoped))
        throw new BadRequestError(REFUSALS.deleteProtectedBranch);
      return { updates: [{ name: BRANCH_PREFIX + name, old: oid, new: null }], result: undefined };
    }).catch((error: unknown) => {
      throw writeRefusal(error);
    });
  }

  /**
   * PUT .../branches/:branch/protect (maintainers): protected, developers let push and merge as asked (not given:
   * maintainers only; for a branch protected already, that level stays as it is).
   */
  async protect(scoped: ProjectInScope, name: string, input: ProtectBranchInput): Promise<Branch> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const oid = await this.oidOf(repo, name);
    await protectBranch(
      this.ctx.em,
      scoped.project.id,
      name,
      developersLevel(input.developers_can_push),
      developersLevel(input.developers_can_merge),
    );
    return this.presentOne(scoped, repo, { name, oid });
  }

  /** PUT .../branches/:branch/unprotect (maintainers): its own protection removed (a pattern's stays). */
  async unprotect(scoped: ProjectInScope, name: string): Promise<Branch> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const oid = await this.oidOf(repo, name);
    await this.ctx.em.nativeDelete(ProtectedBranch, { project: scoped.project.id, name });
    return this.presentOne(scoped, repo, { name, oid });
  }

  /** GET /projects/:id/protected_branches (maintainers): the protections, by name. */
  async listProtected(scoped: ProjectInScope, query: PageQuery): Promise<Page<ProtectedBranchShape>> {
    const page = await findPage(this.ctx.em, ProtectedBranch, { project: scoped.project.id }, { name: 'asc' }, query);
    return { ...page, items: page.items.map(presentProtection) };
  }

  /** A protection of the project by its name or pattern, as the protectedBranch scope loads it; null without one. */
  async findProtection(project: ProjectInScope, name: string): Promise<ProtectedBranchInScope | null> {
    const protection = await this.ctx.em.findOne(ProtectedBranch, { project: project.project.id, name });
    return protection ? { protection, project } : null;
  }

  /** GET /projects/:id/protected_branches/:name */
  getProtected(scoped: ProtectedBranchInScope): ProtectedBranchShape {
    return presentProtection(scoped.protection);
  }

  /** POST /projects/:id/protected_branches: a name or pattern, whether or not a branch has it yet; 409 when protected already. */
  async createProtected(scoped: ProjectInScope, input: ProtectBranchesInput): Promise<ProtectedBranchShape> {
    const id = await insertProtection(this.ctx.em, scoped.project.id, input.name, {
      pushAccessLevel: input.push_access_level ?? MAINTAINERS_ONLY.pushAccessLevel,
      mergeAccessLevel: input.merge_access_level ?? MAINTAINERS_ONLY.mergeAccessLevel,
    });
    if (id === null) throw new ConflictError(REFUSALS.protectionExists(input.name));
    return presentProtection(await this.ctx.em.findOneOrFail(ProtectedBranch, { id }));
  }

  /** DELETE /projects/:id/protected_branches/:name */
  async deleteProtected(scoped: ProtectedBranchInScope): Promise<void> {
    await this.ctx.em.nativeDelete(ProtectedBranch, { id: scoped.protection.id });
  }

  /**
   * DELETE /projects/:id/repository/merged_branches: every branch whose commit the default branch has, but the
   * default branch and protected ones, in one write. The original does it in the background; forgekit has done
   * it when it answers 202.
   */
  async deleteMerged(scoped: ProjectInScope): Promise<void> {
    const protections = await projectProtections(this.ctx, scoped.project.id);
    await writeRepository(this.ctx, scoped, async (repo) => {
      const defaultBranch = await repo.headBranch();
      const defaultOid = defaultBranch ? await repo.branch(defaultBranch) : null;
      if (!defaultOid) return { updates: [], result: undefined };
      const merged = await historySetOf(repo, defaultOid);
      const updates = (await repo.branches())
        .filter(({ name, oid }) => name !== defaultBranch && merged.has(oid) && protectionOf(protections, name) === null)
        .map(({ name, oid }) => ({ name: BRANCH_PREFIX + name, old: oid, new: null }));
      return { updates, result: undefined };
    }).catch((error: unknown) => {
      throw writeRefusal(error);
    });
  }

  /** Branches in the answer's shape: protections read once, `merged` from the default branch's history (kept). */
  protected async present(scoped: ProjectInScope, repo: Repository, branches: Reference[]): Promise<Branch[]> {
    const protections = await projectProtections(this.ctx, scoped.project.id);
    const defaultBranch = await repo.headBranch();
    const defaultOid = defaultBranch ? await repo.branch(defaultBranch) : null;
    const merged =
      defaultOid && branches.some((branch) => branch.name !== defaultBranch) ? await historySetOf(repo, defaultOid) : new Set<string>();
    const projectUrl = projectWebUrl(scoped.project, scoped.namespace, this.ctx.baseUrl);
    return Promise.all(
      branches.map(async ({ name, oid }) => {
        const protection = protectionOf(protections, name);
        return {
          name,
          commit: presentCommit(await repo.readCommit(oid), projectUrl),
          // Merged: in the default branch's history, and not its very commit.
          merged: name !== defaultBranch && oid !== defaultOid && merged.has(oid),
          protected: protection !== null,
          developers_can_push: letsDevelopers(protection?.pushAccessLevel),
          developers_can_merge: letsDevelopers(protection?.mergeAccessLevel),
          can_push: pushesToBranch(this.ctx.caller, scoped, protection),
          default: name === defaultBranch,
          web_url: `${projectUrl}/tree/${name}`,
        };
      }),
    );
  }
}

function presentProtection(protection: ProtectedBranch): ProtectedBranchShape {
  const level = (accessLevel: number) => [{ access_level: accessLevel, access_level_description: protectionDescription(accessLevel) }];
  return {
    id: protection.id,
    name: protection.name,
    push_access_levels: level(protection.pushAccessLevel),
    merge_access_levels: level(protection.mergeAccessLevel),
    allow_force_push: false,
    code_owner_approval_required: false,
  };
}
