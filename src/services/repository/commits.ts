import type { ProjectInScope } from '../../auth/abilities.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import { statsOf } from '../../git/diff.js';
import { applyActions, type FileAction } from '../../git/edit.js';
import { historyOf, lastCommitChanging } from '../../git/history.js';
import { BRANCH_PREFIX, type Commit, type Repository, type Signature } from '../../git/repository.js';
import type {
  CommitAction,
  CommitDetail,
  CommitListItem,
  CommitStats,
  CommitWithStats,
  CreateCommitInput,
  GetCommitQuery,
  ListCommitsQuery,
} from '../../schemas/commits.js';
import { checkPush, isValidBranchName } from './branch-protection.js';
import { pageOf, type Page, type PageQuery } from '../pagination.js';
import { presentCommit } from '../present/commits.js';
import { projectWebUrl } from '../present/projects.js';
import { REFUSALS, writeRefusal } from './refusals.js';
import { lastPipelineOf } from './status-store.js';
import { writeRepository } from './writes.js';
import { Service } from '../service.js';

/** A commit to make on a branch: where it starts, and how its tree comes from the commit it starts from. */
export interface CommitRequest {
  branch: string;
  /** The branch to start from when `branch` is new (the branch itself otherwise). */
  startBranch?: string;
  /** The commit to start from when `branch` is new. */
  startSha?: string;
  message: string;
  /** The author: the committer when not given. */
  author?: { name?: string; email?: string } | Signature;
  /** The committer: the caller when not given (a project made for a user by an administrator is the user's). */
  committer?: { name: string; email: string };
  /** The new tree, from the commit the branch is at (null in an empty repository); EditError refuses it. */
  tree(repo: Repository, base: Commit | null): Promise<string>;
}

/** An edit request's actions as the tree edit takes them; base64 content decoded. */
export function fileActionsOf(actions: CommitAction[]): FileAction[] {
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch covers every action the schema allows, each case returns or throws
  return actions.map((action, index) => {
    const content = action.content === undefined ? undefined : decodeContent(action.content, action.encoding, `actions[${index}][content]`);
    switch (action.action) {
      case 'create':
      case 'update':
        if (content === undefined) throw BadRequestError.missing(`actions[${index}][content]`);
        return { action: action.action, path: action.file_path, content };
      case 'delete':
        return { action: 'delete', path: action.file_path };
      case 'move':
        return { action: 'move', path: action.file_path, previousPath: action.previous_path ?? action.file_path, content };
      case 'chmod':
        return { action: 'chmod', path: action.file_path, executable: action.execute_filemode === true };
    }
  });
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Content as given (`text`, UTF-8) or decoded from Base64, which must be valid. */
export function decodeContent(content: string, encoding: 'text' | 'base64' | undefined, name: string): Uint8Array {
  if (encoding !== 'base64') return Buffer.from(content, 'utf8');
  const compact = content.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw BadRequestError.invalid(name, 'is not valid Base64');
  return Buffer.from(compact, 'base64');
}

/** A first commit's repository holds one already. */
class NotEmptyError extends Error {}

export class CommitsService extends Service {
  private projectUrl(scoped: ProjectInScope): string {
    return projectWebUrl(scoped.project, scoped.namespace, this.ctx.baseUrl);
  }

  /** A commit by hash, branch or tag, or 404 `Commit Not Found`. */
  async commitOf(repo: Repository, revision: string): Promise<Commit> {
    const oid = await repo.resolveCommit(revision);
    if (!oid) throw new NotFoundError('Commit');
    return repo.readCommit(oid);
  }

  /**
   * GET /projects/:id/repository/commits: the history of a ref (the default branch when omitted; `all`: of
   * every branch and tag), newest first, filtered by dates and path. The whole filtered history is walked once
   * and kept (a commit's history never changes), so that its pages and its count come from one walk.
   */
  async list(scoped: ProjectInScope, query: ListCommitsQuery & PageQuery): Promise<Page<CommitListItem>> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const filter = {
      since: query.since ? Math.floor(new Date(query.since).getTime() / 1000) : undefined,
      until: query.until ? Math.floor(new Date(query.until).getTime() / 1000) : undefined,
      path: query.path || undefined,
      firstParent: query.first_parent,
    };
    let oids: string[];
    if (query.all) {
      const starts = [...(await repo.branches()), ...(await repo.tags())].map((reference) => reference.oid);
      const peeled = (await Promise.all(starts.map((oid) => repo.peelToCommit(oid)))).filter((oid): oid is string => oid !== null);
      oids = peeled.length ? await historyOf(repo, peeled, filter) : [];
    } else {
      const revision = query.ref_name ?? (await repo.headBranch());
      const start = revision ? await repo.resolveCommit(revision) : null;
      // A ref that names nothing (an empty repository's default branch among them) has no commits.
      if (!start) return pageOf([], query);
      oids = await historyOf(repo, start, filter);
    }
    const page = pageOf(oids, query);
    const projectUrl = this.projectUrl(scoped);
    const items = await Promise.all(
      page.items.map(async (oid) => {
        const commit = await repo.readCommit(oid);
        const shown: CommitListItem = presentCommit(commit, projectUrl);
        if (query.with_stats) shown.stats = await this.statsOf(repo, commit);
        return shown;
      }),
    );
    return { ...page, items };
  }

  /** GET /projects/:id/repository/commits/:sha: with its stats (unless `stats=false`), status and last pipeline. */
  async get(scoped: ProjectInScope, revision: string, query: GetCommitQuery = {}): Promise<CommitDetail> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const commit = await this.commitOf(repo, revision);
    const pipeline = await lastPipelineOf((await this.ctx.view()).rows, scoped.project.id, commit.oid);
    return {
      ...presentCommit(commit, this.projectUrl(scoped)),
      stats: query.stats === false ? { additions: 0, deletions: 0, total: 0 } : await this.statsOf(repo, commit),
      status: pipeline?.status ?? null,
      last_pipeline: pipeline,
      project_id: scoped.project.id,
    };
  }

  async statsOf(repo: Repository, commit: Commit): Promise<CommitStats> {
    const parentTree = commit.parents.length ? (await repo.readCommit(commit.parents[0])).tree : null;
    return statsOf(repo, commit.tree, parentTree);
  }

  /** POST /projects/:id/repository/commits: every action applied in one commit, or none of them. */
  async create(scoped: ProjectInScope, input: CreateCommitInput): Promise<CommitWithStats> {
    if (!input.actions.length) throw BadRequestError.missing('actions');
    const actions = fileActionsOf(input.actions);
    const checks = input.actions.filter((action) => action.last_commit_id !== undefined);
    const commit = await this.commit(scoped, {
      branch: input.branch,
      startBranch: input.start_branch,
      startSha: input.start_sha,
      message: input.commit_message,
      author: { name: input.author_name, email: input.author_email },
      tree: async (repo, base) => {
        for (const check of checks) {
          const path = check.previous_path ?? check.file_path;
          await this.checkLastCommit(repo, base, path, check.last_commit_id!, REFUSALS.actionFileChanged(path));
        }
        return applyActions(repo, base?.tree ?? null, actions);
      },
    });
    const repo = this.ctx.repositoryOf(scoped.project);
    return {
      ...presentCommit(commit, this.projectUrl(scoped)),
      stats: input.stats === false ? { additions: 0, deletions: 0, total: 0 } : await this.statsOf(repo, commit),
      status: null,
    };
  }

  /**
   * 400 (`message`) unless the last commit that changed `path` (from `base`) is `lastCommitId`: the file changed
   * since the caller read it. A file that is not there has no last commit, and nothing to compare.
   */
  async checkLastCommit(repo: Repository, base: Commit | null, path: string, lastCommitId: string, message: string): Promise<void> {
    const last = base ? await lastCommitChanging(repo, base.oid, path) : null;
    if (last !== null && last !== lastCommitId) throw new BadRequestError(message);
  }

  /**
   * The first commit of an empty repository, adding one file on `branch`: what the original writes when a project
   * is made `initialize_with_readme`, and before a branch made in an empty repository. Null when the repository
   * holds a commit by the time its lock is taken (another write came first): there is nothing to start.
   */
  async firstCommit(
    scoped: ProjectInScope,
    request: { branch: string; message: string; path: string; content: string; committer?: { name: string; email: string } },
  ): Promise<Commit | null> {
    const file: FileAction[] = [{ action: 'create', path: request.path, content: Buffer.from(request.content, 'utf8') }];
    return this.commit(scoped, {
      branch: request.branch,
      message: request.message,
      committer: request.committer,
      tree: async (repo, base) => {
        if (base || (await repo.branches()).length) throw new NotEmptyError();
        return applyActions(repo, null, file);
      },
    }).catch(async (error: unknown) => {
      // Another write's first commit came first (on this branch or, refused as not the branch's, on another one).
      if (
        error instanceof NotEmptyError ||
        (error instanceof BadRequestError && (await this.ctx.repositoryOf(scoped.project).branches()).length)
      )
        return null;
      throw error;
    });
  }

  /**
   * A new commit on a branch, as every write of files makes one (the file endpoints, batch commits,
   * cherry-picks): the branch (or, for a new one, `startBranch` or `startSha`) gives the commit it starts from,
   * the caller must be allowed to push to the branch, the tree must differ from the start's. Under the
   * repository's lock the branch is read, the objects written and the branch moved from what was read.
   */
  async commit(scoped: ProjectInScope, request: CommitRequest): Promise<Commit> {
    if (!isValidBranchName(request.branch)) throw new BadRequestError(REFUSALS.branchNameInvalid);
    await checkPush(this.ctx, scoped, request.branch);
    const user = request.committer ?? this.ctx.currentUser;
    const now = Math.floor(this.ctx.now().getTime() / 1000);
    const committer: Signature = { name: user.name, email: user.email, timestamp: now, offsetMinutes: 0 };
    const given = request.author;
    const author: Signature =
      given && 'timestamp' in given
        ? given
        : { name: given?.name || user.name, email: given?.email || user.email, timestamp: now, offsetMinutes: 0 };
    return writeRepository(this.ctx, scoped, async (repo) => {
      const current = await repo.branch(request.branch);
      const empty = current === null && (await repo.branches()).length === 0;
      let start: string | null = current;
      const startsElsewhere =
        (request.startBranch !== undefined && request.startBranch !== request.branch) || request.startSha !== undefined;
      if (startsElsewhere && !empty) {
        if (current) throw new BadRequestError(REFUSALS.branchTaken(request.branch));
        start = request.startSha !== undefined ? await repo.resolveCommit(request.startSha) : await repo.branch(request.startBranch!);
        if (!start) throw new BadRequestError(request.startSha !== undefined ? REFUSALS.invalidStartSha : REFUSALS.notOnBranch);
      } else if (!current && !empty) {
        throw new BadRequestError(REFUSALS.notOnBranch);
      }
      const base = start ? await repo.readCommit(start) : null;
      const tree = await request.tree(repo, base).catch((error: unknown) => {
        throw writeRefusal(error);
      });
      if (base && tree === base.tree) throw new BadRequestError(REFUSALS.unchanged);
      const oid = await repo.writeCommit({ tree, parents: base ? [base.oid] : [], message: request.message, author, committer });
      return { updates: [{ name: BRANCH_PREFIX + request.branch, old: current, new: oid }], result: await repo.readCommit(oid) };
    }).catch((error: unknown) => {
      throw writeRefusal(error);
    });
  }
}
