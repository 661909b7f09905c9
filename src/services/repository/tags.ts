import { can, type ProjectInScope } from '../../auth/abilities.js';
import { BadRequestError, MethodNotAllowedError } from '../../errors.js';
import { ReferenceChangedError } from '../../git/errors.js';
import { isValidReferenceName } from '../../git/refs.js';
import { TAG_PREFIX, type Reference, type Repository } from '../../git/repository.js';
import type { CreateTagInput, ListTagsQuery, Tag } from '../../schemas/tags.js';
import type { Page, PageQuery } from '../pagination.js';
import { presentCommit } from '../present/commits.js';
import { projectWebUrl } from '../present/projects.js';
import { REFUSALS, writeRefusal } from './refusals.js';
import { writeRepository, type ReferenceUpdate } from './writes.js';
import { byName, RefsService, searchFilter } from './refs.js';
import { releaseNotesOfTags, removeReleaseOfTag, replaceReleaseOfNewTag } from './release-notes.js';

/**
 * Whether a name can be a tag's, by the original's rules: a valid git reference name that does not start with
 * `-`, `refs/heads/` or `refs/remotes/`, and is not `HEAD`.
 */
export const isValidTagName = (name: string) =>
  isValidReferenceName(name) && name !== 'HEAD' && !['-', 'refs/heads/', 'refs/remotes/'].some((prefix) => name.startsWith(prefix));

/** How a caller refuses a tag it cannot make: the tags API with 405, the releases API with 400. */
export type TagRefusal = (message: string) => Error;

/** What a failed tag write answers: the repository layer's refusals in the caller's status; a tag made meanwhile exists. */
export function tagWriteRefusal(error: unknown, name: string, refuse: TagRefusal): unknown {
  if (error instanceof ReferenceChangedError) return refuse(REFUSALS.tagExists(name));
  const refused = writeRefusal(error);
  return refused !== error && refused instanceof Error ? refuse(refused.message) : error;
}

/** An annotation as git keeps it, without the line end git adds to its last line. */
const annotationText = (message: string) => message.replace(/\n$/, '');

export class TagsService extends RefsService<Tag> {
  protected readonly kind = 'Tag';

  protected find(repo: Repository, name: string): Promise<string | null> {
    return repo.tag(name);
  }

  /**
   * GET /projects/:id/repository/tags: by name, the last first (SPEC), or by the date of the commit each names
   * (`order_by=updated`); `sort=asc` turns either round; `search` as for branches.
   */
  async list(scoped: ProjectInScope, query: ListTagsQuery & PageQuery): Promise<Page<Tag>> {
    const repo = this.ctx.repositoryOf(scoped.project);
    let tags = await repo.tags();
    if (query.search) tags = tags.filter(searchFilter(query.search));
    if (query.order_by === 'updated') {
      // Every tag's commit is read to order them, as the original does; a tag of no commit counts as the oldest.
      const dates = new Map(await Promise.all(tags.map(async (tag) => [tag.name, await committedAt(repo, tag.oid)] as const)));
      tags.sort((a, b) => dates.get(a.name)! - dates.get(b.name)! || byName(a, b));
    } else {
      tags.sort(byName);
    }
    if (query.sort !== 'asc') tags.reverse();
    return this.presentPage(scoped, repo, tags, query);
  }

  /**
   * POST /projects/:id/repository/tags: a lightweight tag, or an annotated one with `message` (the caller its
   * tagger), and its release notes with `release_description`. Refused with 405 and the original's words.
   * The release row is written in the call's transaction before the tag moves in (writeRepository).
   */
  async create(scoped: ProjectInScope, input: CreateTagInput): Promise<Tag> {
    const refuse: TagRefusal = (message) => new MethodNotAllowedError(message);
    const created = await writeRepository(this.ctx, scoped, async (repo) => {
      const { update, commit } = await this.build(scoped, repo, input.tag_name, input.ref, input.message, refuse);
      // Release notes only when there is something in them, as the original stores them.
      const notes = input.release_description?.trim() ? { description: input.release_description, sha: commit } : null;
      await replaceReleaseOfNewTag(this.ctx, scoped.project.id, input.tag_name, notes);
      return { updates: [update], result: { name: input.tag_name, oid: update.new! } };
    }).catch((error: unknown) => {
      throw tagWriteRefusal(error, input.tag_name, refuse);
    });
    return this.presentOne(scoped, this.ctx.repositoryOf(scoped.project), created);
  }

  /**
   * A new tag's reference update (and the commit it names), its annotated tag object written when there is a
   * message that is not blank; under the repository's lock. Refuses, in the original's words and the caller's
   * status and order, an invalid name, a ref that names no commit and a tag that exists (which only maintainers
   * may change: to others the original says so first).
   */
  async build(
    scoped: ProjectInScope,
    repo: Repository,
    name: string,
    ref: string,
    message: string | undefined,
    refuse: TagRefusal,
  ): Promise<{ update: ReferenceUpdate; commit: string }> {
    if (!isValidTagName(name)) throw refuse(REFUSALS.tagNameInvalid);
    const commit = await repo.resolveCommit(ref);
    if (!commit) throw refuse(REFUSALS.targetInvalid(ref));
    if (await repo.tag(name)) throw refuse(this.changesTags(scoped) ? REFUSALS.tagExists(name) : REFUSALS.changeExistingTags);
    const user = this.ctx.currentUser;
    // The original strips the annotation; an empty one makes a lightweight tag (as the original does since Gitaly).
    const annotation = message?.trim();
    const oid = annotation
      ? await repo.writeAnnotatedTag({
          name,
          commit,
          message: annotation,
          tagger: { name: user.name, email: user.email, timestamp: Math.floor(this.ctx.now().getTime() / 1000), offsetMinutes: 0 },
        })
      : commit;
    return { update: { name: TAG_PREFIX + name, old: null, new: oid }, commit };
  }

  /**
   * DELETE /projects/:id/repository/tags/:tag_name: the tag and its release; maintainers only, as the original
   * lets only them change a tag that exists (400 to developers). The release row is deleted in the call's
   * transaction before the tag goes (writeRepository).
   */
  async delete(scoped: ProjectInScope, name: string): Promise<void> {
    await writeRepository(this.ctx, scoped, async (repo) => {
      const oid = await this.oidOf(repo, name);
      if (!this.changesTags(scoped)) throw new BadRequestError(REFUSALS.changeExistingTags);
      await removeReleaseOfTag(this.ctx, scoped.project.id, name);
      return { updates: [{ name: TAG_PREFIX + name, old: oid, new: null }], result: undefined };
    }).catch((error: unknown) => {
      throw writeRefusal(error);
    });
  }

  /** Whether the caller may change or delete a tag that exists: maintainers, as the original's push rules say. */
  private changesTags(scoped: ProjectInScope): boolean {
    return can(this.ctx.caller, 'admin_project', scoped);
  }

  /** Tags in the answer's shape: their release notes read in one query. */
  protected async present(scoped: ProjectInScope, repo: Repository, tags: Reference[]): Promise<Tag[]> {
    const notes = await releaseNotesOfTags(
      this.ctx,
      scoped.project.id,
      tags.map((tag) => tag.name),
    );
    const projectUrl = projectWebUrl(scoped.project, scoped.namespace, this.ctx.baseUrl);
    return Promise.all(
      tags.map(async ({ name, oid }) => {
        const commit = await repo.peelToCommit(oid);
        // A lightweight tag holds its commit; anything else it holds may be an annotation.
        const annotation = commit === oid ? null : await repo.readAnnotatedTag(oid);
        return {
          name,
          message: annotation ? annotationText(annotation.message) : null,
          target: oid,
          commit: commit ? presentCommit(await repo.readCommit(commit), projectUrl) : null,
          release: notes.get(name) ?? null,
          protected: false,
        };
      }),
    );
  }
}

/** When the commit a tag names was committed (seconds); a tag of anything else counts as the oldest. */
async function committedAt(repo: Repository, oid: string): Promise<number> {
  const commit = await repo.peelToCommit(oid);
  return commit ? (await repo.readCommit(commit)).committer.timestamp : Number.NEGATIVE_INFINITY;
}
