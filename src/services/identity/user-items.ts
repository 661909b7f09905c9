import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { User } from '../../db/entities/index.js';
import { NotFoundError } from '../../errors.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import type { View } from '../present/view.js';
import { Service } from '../service.js';

/** What a kind of user's item is to the routes that list, read and delete it. */
export interface UserItemKind<Item extends object, Shape> {
  entity: EntityName<Item>;
  /** The resource the 404 names (`Key`, `GPG Key`, `Email`, `Custom Attribute`). */
  notFound: string;
  /** Its order in a list. */
  orderBy: { id: 'asc' } | { key: 'asc' };
  present(items: Item[], view: View): Shape[];
}

/**
 * What users own by the dozen (SSH and GPG keys, e-mail addresses, custom attributes): listed, read and deleted
 * alike, whether the caller asks for its own (`/user/...`) or an administrator for a user's (`/users/:id/...`);
 * each kind makes its own.
 */
export abstract class UserItemsService<Item extends object, Shape, Id extends number | string = number> extends Service {
  protected abstract readonly kind: UserItemKind<Item, Shape>;

  /** The item of the owner that `id` names (its ID, or a custom attribute's key). */
  protected abstract named(owner: User, id: Id): FilterQuery<Item>;

  async list(owner: User, input: PageQuery): Promise<Page<Shape>> {
    const page = await findPage(this.ctx.em, this.kind.entity, { user: owner } as never, this.kind.orderBy as never, input);
    return { ...page, items: this.kind.present(page.items, await this.ctx.view()) };
  }

  async get(owner: User, id: Id): Promise<Shape> {
    return this.kind.present([await this.find(owner, id)], await this.ctx.view())[0];
  }

  async delete(owner: User, id: Id): Promise<void> {
    await this.ctx.em.remove(await this.find(owner, id)).flush();
  }

  /** The owner's item; 404 naming the kind when it has none of that ID. */
  protected async find(owner: User, id: Id): Promise<Item> {
    const item = await this.ctx.em.findOne(this.kind.entity, this.named(owner, id) as never);
    if (!item) throw new NotFoundError(this.kind.notFound);
    return item;
  }
}
