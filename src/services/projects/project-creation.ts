import type { ProjectInScope } from '../../auth/abilities.js';
import { newRunnersToken } from '../../auth/secret-box.js';
import { CREATOR_LEVELS } from '../../auth/levels.js';
import { Namespace, Project, ProjectMember, User, type Visibility } from '../../db/entities/index.js';
import { keyOf } from '../../db/rows.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import type { CreateProjectForUserInput, CreateProjectInput, Project as ProjectShape, ForkProjectInput } from '../../schemas/projects.js';
import { DEFAULT_BRANCH } from '../../git/store.js';
import { FORK_REPOSITORY, IMPORT_REPOSITORY } from '../../jobs/repository-jobs.js';
import { checkAvatar, Problems, TAKEN } from '../identity/user-validation.js';
import {
  checkImportUrl,
  checkLimit,
  checkNameAndPath,
  checkTaken,
  checkVisibility,
  leastOpen,
  mayCreateProjectsIn,
  pathFromName,
  setProjectAvatar,
  settingsOf,
  visibleNamespace,
} from './project-rules.js';
import { Service } from '../service.js';
import { CommitsService } from '../repository/commits.js';
import { projectThen } from './project-store.js';
import { ProjectsService } from './projects.js';

/** Projects made: empty, imported from a URL, or forked (POST /projects, /projects/user/:user_id, /projects/:id/fork). */
export class ProjectCreationService extends Service {
  /** POST /projects: a project in the caller's namespace or one it may create projects in, with an empty repository. */
  async create(input: CreateProjectInput): Promise<ProjectShape> {
    return this.createAs(this.ctx.user, await this.targetNamespace(input.namespace_id), input);
  }

  /** POST /projects/user/:user_id (administrators): a project in the user's namespace, made as the user. */
  async createForUser(user: User, input: CreateProjectForUserInput): Promise<ProjectShape> {
    return this.createAs(user, await this.em.findOneOrFail(Namespace, { owner: user.id }), input);
  }

  /**
   * POST /projects/:id/fork: a project like the source in a namespace the caller may create projects in (its own
   * by default), answered at once with `import_status` `scheduled`; a job copies the repository. A name or path
   * taken there is 409, as the original answers it.
   */
  async fork(scoped: ProjectInScope, input: ForkProjectInput): Promise<ProjectShape> {
    const target =
      input.namespace === undefined
        ? { owner: this.ctx.currentUser.id }
        : { id: (await visibleNamespace(this.ctx, input.namespace))?.id ?? 0 };
    // Managed by the call's EntityManager: the fork's row refers to it.
    const namespace = await this.em.findOne(Namespace, target);
    if (!namespace || !(await mayCreateProjectsIn(this.ctx, namespace))) throw new NotFoundError('Target Namespace');
    const source = scoped.project;
    // No more open than its source, the group it goes into, or what was asked for: a fork never publishes what its source hides.
    const visibility = leastOpen([
      source.visibility,
      ...(namespace.kind === 'group' ? [namespace.visibility] : []),
      ...(input.visibility ? [input.visibility] : []),
    ]);
    const copied = {
      name: input.name ?? source.name,
      path: input.path ?? source.path,
      description: source.description ?? undefined,
      visibility,
      tag_list: source.tagList,
      ci_config_path: source.ciConfigPath ?? undefined,
      default_branch: source.defaultBranch ?? undefined,
    };
    return this.createAs(this.ctx.user, namespace, copied, { forkedFrom: source }).catch((error: unknown) => {
      throw error instanceof BadRequestError && typeof error.messages === 'object' ? new ConflictError(error.messages) : error;
    });
  }

  /**
   * A project made in `namespace` by `user`, with its repository: empty, or (a fork, an `import_url`) filled by a
   * job enqueued with the row, in its transaction, so that one is there exactly when the other is.
   */
  private async createAs(
    user: User,
    namespace: Namespace,
    input: CreateProjectInput & { default_branch?: string },
    origin: { forkedFrom?: Project } = {},
  ): Promise<ProjectShape> {
    if (input.name === undefined && input.path === undefined) {
      throw new BadRequestError('400 (Bad request) "name, path" are missing, at least one parameter must be provided');
    }
    const name = input.name ?? input.path!;
    const path = input.path ?? pathFromName(name);
    const settings = await this.ctx.settings();
    const visibility: Visibility = input.visibility ?? (settings.default_project_visibility as Visibility);

    const problems = new Problems();
    checkNameAndPath(problems, name, path);
    checkVisibility(this.ctx, problems, visibility, settings, namespace);
    checkAvatar(problems, input.avatar);
    if (input.import_url !== undefined) {
      await checkImportUrl(
        problems,
        input.import_url,
        settings.allow_local_requests_from_web_hooks_and_services || this.ctx.env.allowLocalRequests,
      );
    }
    if (!problems.any) await checkTaken(this.ctx, problems, namespace, name, path);
    // A user's `projects_limit` counts the projects in its own namespace, whoever makes them there.
    if (namespace.kind === 'user') {
      const owner = keyOf(namespace.owner) === user.id ? user : await this.em.findOneOrFail(User, { id: keyOf(namespace.owner) });
      await checkLimit(this.ctx, problems, owner);
    }
    if (problems.any) throw new BadRequestError(problems.messages);

    const project = this.em.create(Project, {
      name,
      path,
      namespace,
      creator: user,
      description: input.description ?? null,
      visibility,
      tagList: [...new Set(input.tag_list ?? input.topics ?? [])],
      ciConfigPath: input.ci_config_path ?? null,
      defaultBranch: input.default_branch ?? null,
      avatarFilename: input.avatar?.filename ?? null,
      forkedFrom: origin.forkedFrom?.id ?? null,
      // The URL may hold credentials: sealed as the runners token is.
      importUrl: input.import_url ? this.ctx.env.secrets.seal(input.import_url) : null,
      importStatus: origin.forkedFrom || input.import_url ? 'scheduled' : 'none',
      repositoryStorage: settings.repository_storages[Math.floor(Math.random() * settings.repository_storages.length)],
      ...newRunnersToken(this.ctx.env.secrets),
      ...settingsOf(input),
    });
    // As the original does: a user's namespace's user is its project's maintainer as well as the namespace's
    // owner; in a group, the group's members have what the group gives them.
    if (namespace.kind === 'user')
      this.em.create(ProjectMember, { project, user: keyOf(namespace.owner), accessLevel: CREATOR_LEVELS.project });
    if (input.avatar) setProjectAvatar(this.ctx, project, input.avatar);
    await this.em.flush().catch((error: unknown) => {
      throw takenAttribute(error) === 'path' ? BadRequestError.invalid('path', TAKEN) : error;
    });
    // The repository once the row has its ID, inside the transaction: should it fail, the project is not made.
    const defaultBranch = input.default_branch ?? DEFAULT_BRANCH;
    await this.ctx.env.repositories.create(project.repositoryStorage, project.id, defaultBranch);
    await this.ctx.record({
      kind: 'project.created',
      authorId: user.id,
      projectId: project.id,
      data: {
        forked_from_id: origin.forkedFrom?.id ?? null,
        ...(input.import_url ? { imported: true } : {}),
        ...(await projectThen(this.em, project.id)),
      },
    });
    if (origin.forkedFrom)
      await this.ctx.env.jobs.enqueue(this.em, FORK_REPOSITORY, { projectId: project.id, sourceProjectId: origin.forkedFrom.id });
    else if (input.import_url) await this.ctx.env.jobs.enqueue(this.em, IMPORT_REPOSITORY, { projectId: project.id });
    else if (input.initialize_with_readme) return this.initializeWithReadme(project, user, defaultBranch);
    return (await new ProjectsService(this.ctx).present([project]))[0];
  }

  /**
   * `initialize_with_readme`: the default branch's first commit, "Initial commit" by the project's creator, adds
   * README.md as the original writes it (its name as a heading, then its description); the project as it is then.
   */
  private async initializeWithReadme(project: Project, user: User, branch: string): Promise<ProjectShape> {
    const scoped = await new ProjectsService(this.ctx).findInScopeOrFail(project.id);
    const content = `# ${project.name}\n\n${project.description ?? ''}`;
    await new CommitsService(this.ctx).firstCommit(scoped, {
      branch,
      message: 'Initial commit',
      path: 'README.md',
      content,
      committer: user,
    });
    // The first branch set the default branch and the last activity (src/services/repository/reference-rules.ts).
    return (await new ProjectsService(this.ctx).present([await this.em.refreshOrFail(project)]))[0];
  }

  /** The namespace asked for (the caller's own by default): its own, or a group it maintains or owns (any, for administrators). */
  private async targetNamespace(namespaceId: number | undefined): Promise<Namespace> {
    if (namespaceId === undefined) return this.em.findOneOrFail(Namespace, { owner: this.ctx.currentUser.id });
    const namespace = await this.em.findOne(Namespace, { id: namespaceId });
    if (namespace && (await mayCreateProjectsIn(this.ctx, namespace))) return namespace;
    throw BadRequestError.invalid('namespace', 'is not valid');
  }
}
