import { CustomAttribute, type User } from '../../db/entities/index.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { CustomAttribute as CustomAttributeShape } from '../../schemas/custom-attributes.js';
import type { Context } from '../context.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentCustomAttribute, presentCustomAttributes } from '../present/custom-attributes.js';

export class CustomAttributesService {
  constructor(private readonly ctx: Context) {}

  async list(owner: User, input: PageQuery): Promise<Page<CustomAttributeShape>> {
    const page = await findPage(this.ctx.em, CustomAttribute, { user: owner }, { key: 'asc' }, input);
    return { ...page, items: presentCustomAttributes(page.items, await this.ctx.view()) };
  }

  async get(owner: User, key: string): Promise<CustomAttributeShape> {
    const attribute = await this.ctx.em.findOne(CustomAttribute, { user: owner, key });
    if (!attribute) throw new NotFoundError('Custom Attribute');
    return presentCustomAttribute(attribute, await this.ctx.view());
  }

  /** Creates the attribute, or updates it when the user already has one with this key. */
  async set(owner: User, key: string, value: string): Promise<CustomAttributeShape> {
    if (value === '') throw BadRequestError.invalid('value', "can't be blank");
    const existing = await this.ctx.em.findOne(CustomAttribute, { user: owner, key });
    const attribute = existing ?? this.ctx.em.create(CustomAttribute, { user: owner, key, value });
    attribute.value = value;
    await this.ctx.em.flush();
    return presentCustomAttribute(attribute, await this.ctx.view());
  }

  async delete(owner: User, key: string): Promise<void> {
    const attribute = await this.ctx.em.findOne(CustomAttribute, { user: owner, key });
    if (!attribute) throw new NotFoundError('Custom Attribute');
    await this.ctx.em.remove(attribute).flush();
  }
}
