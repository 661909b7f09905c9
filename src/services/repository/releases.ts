import type { ProjectInScope } from '../../auth/abilities.js';
import type { Release as ReleaseRow } from '../../db/entities/index.js';
import { keyOf } from '../../db/rows.js';
import { BadRequestError, ConflictError, NotFoundError, UnprocessableEntityError } from '../../errors.js';
import type { Repository } from '../../git/repository.js';
import type {
  CreateReleaseInput,
  ListReleasesQuery,
  ProjectRelease,
  Release,
  ReleaseNoteInput,
  UpdateReleaseInput,
} from '../../schemas/tags.js';
import { pageOf, type Page, type PageQuery } from '../pagination.js';
import { presentCommit } from '../present/commits.js';
import { projectWebUrl } from '../present/projects.js';
import { presentUserBasic } from '../present/users.js';
import { REFUSALS } from './refusals.js';
import {
  findRelease,
  insertRelease,
  releaseAuthors,
  releaseIdsOfTags,
  releasesByIds,
  updateRelease,
  type NewRelease,
  type ReleaseChanges,
} from './release-store.js';
import { tagWriteRefusal, type TagRefusal } from './tags.js';
import { writeRepository } from './writes.js';
import { noteOf, removeReleaseOfTag, replaceReleaseOfNewTag } from './release-notes.js';
import { Service } from '../service.js';
import { TagsService } from './tags.js';

const tagMissing = () => new NotFoundError(REFUSALS.tagMissing, { verbatim: true });
const releaseMissing = () => new NotFoundError(REFUSALS.releaseMissing, { verbatim: true });

/**
 * Releases: the notes the database keeps beside a tag of the repository, one per tag name, shown by the tags API
 * (`release`) and by the releases API. A release is shown only while its tag exists: a tag's deletion deletes
 * its release in the call's transaction before the tag goes, so a crash between the two leaves a row whose tag
 * is gone, which nothing shows and the tag's next creation replaces.
 *
 * Rows are written with statements that run at once (not at the ORM's flush, which comes at the commit): a
 * write of a release and a tag writes the row first and moves the tag last (writeRepository).
 */
export class ReleasesService extends Service {
  /** A new release of a tag, the caller its author; null when the tag has one (two writers racing: the second one gets null). */
  private insert(projectId: number, tagName: string, release: NewRelease): Promise<ReleaseRow | null> {
    return insertRelease(this.ctx.em, projectId, tagName, release, this.ctx.currentUser.id);
  }

  /** A tag's release, or null. */
  private async find(projectId: number, tagName: string): Promise<ReleaseRow | null> {
    return findRelease((await this.ctx.view()).rows, projectId, tagName);
  }

  /** The commit a tag names (null for a tag of something else), or the original's 404 `Tag does not exist`. */
  private async tagCommit(repo: Repository, tagName: string): Promise<string | null> {
    const oid = await repo.tag(tagName);
    if (!oid) throw tagMissing();
    return repo.peelToCommit(oid);
  }

  // ---- the tags API's release notes ----

  /** POST /projects/:id/repository/tags/:tag_name/release: 409 when the tag has a release, 404 when there is no tag. */
  async createNote(scoped: ProjectInScope, tagName: string, input: ReleaseNoteInput): Promise<Release> {
    const sha = await this.tagCommit(this.ctx.repositoryOf(scoped.project), tagName);
    const row = await this.insert(scoped.project.id, tagName, { description: input.description, sha });
    if (!row) throw new ConflictError(REFUSALS.releaseExists);
    return noteOf(row);
  }

  /** PUT /projects/:id/repository/tags/:tag_name/release: 404 when there is no tag, or no release. */
  async updateNote(scoped: ProjectInScope, tagName: string, input: ReleaseNoteInput): Promise<Release> {
    await this.tagCommit(this.ctx.repositoryOf(scoped.project), tagName);
    const row = await updateRelease(this.ctx.em, scoped.project.id, tagName, { description: input.description });
    if (!row) throw releaseMissing();
    return noteOf(row);
  }

  // ---- the releases API ----

  /**
   * GET /projects/:id/releases: the latest released first (`order_by` `released_at` or `created_at`, `sort`).
   * Only releases whose tag exists: the tags' names are given to the query, so that it counts and orders them.
   */
  async list(scoped: ProjectInScope, query: ListReleasesQuery & PageQuery): Promise<Page<ProjectRelease>> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const tagNames = (await repo.tags()).map((tag) => tag.name);
    const rows = (await this.ctx.view()).rows;
    const ids = await releaseIdsOfTags(
      rows,
      scoped.project.id,
      tagNames,
      query.order_by === 'created_at' ? 'created_at' : 'released_at',
      query.sort === 'asc' ? 'asc' : 'desc',
    );
    const page = pageOf(ids, query);
    const found = await releasesByIds(rows, page.items);
    const byId = new Map(found.map((row) => [row.id, row]));
    // A release deleted since its ID was read is left out.
    const releases = page.items.flatMap((id) => byId.get(id) ?? []);
    return { ...page, items: await this.present(scoped, repo, releases) };
  }

  /** GET /projects/:id/releases/:tag_name */
  async get(scoped: ProjectInScope, tagName: string): Promise<ProjectRelease> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const row = (await repo.tag(tagName)) ? await this.find(scoped.project.id, tagName) : null;
    if (!row) throw new NotFoundError();
    return (await this.present(scoped, repo, [row]))[0];
  }

  /**
   * POST /projects/:id/releases: the release of a tag, the tag made first from `ref` (annotated with
   * `tag_message`) when it does not exist; 409 when the tag has a release. Where the tag is made, its release is
   * written first and the tag moves in last (writeRepository); a tag that cannot be made is refused with 400.
   */
  async create(scoped: ProjectInScope, input: CreateReleaseInput): Promise<ProjectRelease> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const release = {
      name: input.name,
      description: input.description ?? '',
      releasedAt: input.released_at === undefined ? undefined : new Date(input.released_at),
    };
    const existing = await repo.tag(input.tag_name);
    let row: ReleaseRow | null;
    if (existing) {
      row = await this.insert(scoped.project.id, input.tag_name, { ...release, sha: await repo.peelToCommit(existing) });
    } else {
      const ref = input.ref;
      if (ref === undefined) throw new UnprocessableEntityError(REFUSALS.refMissing);
      const refuse: TagRefusal = (message) => new BadRequestError(message);
      row = await writeRepository(this.ctx, scoped, async (locked) => {
        const { update, commit } = await new TagsService(this.ctx).build(scoped, locked, input.tag_name, ref, input.tag_message, refuse);
        return {
          updates: [update],
          result: await replaceReleaseOfNewTag(this.ctx, scoped.project.id, input.tag_name, { ...release, sha: commit }),
        };
      }).catch((error: unknown) => {
        throw tagWriteRefusal(error, input.tag_name, refuse);
      });
    }
    if (!row) throw new ConflictError(REFUSALS.releaseExists);
    return (await this.present(scoped, repo, [row]))[0];
  }

  /** PUT /projects/:id/releases/:tag_name: `name`, `description`, `released_at`; 400 when none is given, as the original. */
  async update(scoped: ProjectInScope, tagName: string, input: UpdateReleaseInput): Promise<ProjectRelease> {
    const repo = this.ctx.repositoryOf(scoped.project);
    await this.tagCommit(repo, tagName);
    const changes: ReleaseChanges = {
      name: input.name ?? undefined,
      description: input.description ?? undefined,
      releasedAt: input.released_at ? new Date(input.released_at) : undefined,
    };
    if (Object.values(changes).every((value) => value === undefined)) {
      if (!(await this.find(scoped.project.id, tagName))) throw releaseMissing();
      throw new BadRequestError(REFUSALS.releaseParamsEmpty);
    }
    const row = await updateRelease(this.ctx.em, scoped.project.id, tagName, changes);
    if (!row) throw releaseMissing();
    return (await this.present(scoped, repo, [row]))[0];
  }

  /** DELETE /projects/:id/releases/:tag_name: the release, not its tag; answered with the release, as the original. */
  async delete(scoped: ProjectInScope, tagName: string): Promise<ProjectRelease> {
    const repo = this.ctx.repositoryOf(scoped.project);
    await this.tagCommit(repo, tagName);
    const row = await removeReleaseOfTag(this.ctx, scoped.project.id, tagName);
    if (!row) throw releaseMissing();
    return (await this.present(scoped, repo, [row]))[0];
  }

  /** Releases in the releases API's shape: their authors read in one query. */
  private async present(scoped: ProjectInScope, repo: Repository, releases: ReleaseRow[]): Promise<ProjectRelease[]> {
    const view = await this.ctx.view();
    const authorIds = [...new Set(releases.flatMap((release) => (release.author ? [keyOf(release.author)] : [])))];
    const authors = await releaseAuthors(view.rows, authorIds);
    const authorsById = new Map(authors.map((author) => [author.id, author]));
    const projectUrl = projectWebUrl(scoped.project, scoped.namespace, this.ctx.baseUrl);
    const now = this.ctx.now().getTime();
    return Promise.all(
      releases.map(async (release) => {
        const author = release.author ? authorsById.get(keyOf(release.author)) : undefined;
        const commit = release.sha ? await repo.peelToCommit(release.sha) : null;
        return {
          tag_name: release.tagName,
          name: release.name ?? release.tagName,
          description: release.description,
          created_at: release.createdAt.toISOString(),
          released_at: release.releasedAt.toISOString(),
          ...(author ? { author: presentUserBasic(author, view) } : {}),
          commit: commit ? presentCommit(await repo.readCommit(commit), projectUrl) : null,
          upcoming_release: release.releasedAt.getTime() > now,
          assets: { count: 0, sources: [], links: [] },
        };
      }),
    );
  }
}
