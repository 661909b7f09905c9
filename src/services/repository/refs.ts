import type { ProjectInScope } from '../../auth/abilities.js';
import { NotFoundError } from '../../errors.js';
import type { Reference, Repository } from '../../git/repository.js';
import { pageOf, type Page, type PageQuery } from '../pagination.js';
import { Service } from '../service.js';

/** By name as git orders refs: by code unit, not by locale. */
export const byName = (a: Reference, b: Reference) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** `search` as the original reads it (for branches and tags): `^x` starts with x, `x$` ends with it, otherwise contains it (any case). */
export function searchFilter(search: string): (reference: { name: string }) => boolean {
  const lower = search.toLowerCase();
  if (lower.startsWith('^')) return (reference) => reference.name.toLowerCase().startsWith(lower.slice(1));
  if (lower.endsWith('$')) return (reference) => reference.name.toLowerCase().endsWith(lower.slice(0, -1));
  return (reference) => reference.name.toLowerCase().includes(lower);
}

/** What the branches and the tags APIs share: refs of one kind, found by name and presented in the kind's shape. */
export abstract class RefsService<Shown> extends Service {
  /** The kind, as a 404 names it (`404 Branch Not Found`). */
  protected abstract readonly kind: 'Branch' | 'Tag';
  /** The object a ref of this kind names; null when there is none. */
  protected abstract find(repo: Repository, name: string): Promise<string | null>;
  /** Refs of this kind in the answer's shape. */
  protected abstract present(scoped: ProjectInScope, repo: Repository, refs: Reference[]): Promise<Shown[]>;

  /** The object the ref names, or 404. */
  protected async oidOf(repo: Repository, name: string): Promise<string> {
    const oid = await this.find(repo, name);
    if (!oid) throw new NotFoundError(this.kind);
    return oid;
  }

  protected async presentOne(scoped: ProjectInScope, repo: Repository, ref: Reference): Promise<Shown> {
    return (await this.present(scoped, repo, [ref]))[0];
  }

  /** A page of the refs (ordered and filtered already), only the page's presented. */
  protected async presentPage(scoped: ProjectInScope, repo: Repository, refs: Reference[], query: PageQuery): Promise<Page<Shown>> {
    const page = pageOf(refs, query);
    return { ...page, items: await this.present(scoped, repo, page.items) };
  }

  /** GET .../repository/branches/:branch, .../repository/tags/:tag_name */
  async get(scoped: ProjectInScope, name: string): Promise<Shown> {
    const repo = this.ctx.repositoryOf(scoped.project);
    return this.presentOne(scoped, repo, { name, oid: await this.oidOf(repo, name) });
  }
}
