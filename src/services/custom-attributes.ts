import { CustomAttribute, type User } from '../db/entities/index.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import type { CustomAttribute as CustomAttributeShape } from '../schemas/custom-attributes.js';
import type { Context } from './context.js';
import { pageRequest, toPage, type Page } from './pagination.js';
import { presentCustomAttribute } from './present/users.js';

export class CustomAttributesService {
  constructor(private readonly ctx: Context) {}

  async list(owner: User, input: { page?: number; per_page?: number }): Promise<Page<CustomAttributeShape>> {
    const request = pageRequest(input);
    const [attributes, total] = await this.ctx.em.findAndCount(
      CustomAttribute,
      { user: owner },
      { orderBy: { key: 'asc' }, limit: request.perPage, offset: request.offset },
    );
    return toPage(request, attributes.map(presentCustomAttribute), total);
  }

  async get(owner: User, key: string): Promise<CustomAttributeShape> {
    const attribute = await this.ctx.em.findOne(CustomAttribute, { user: owner, key });
    if (!attribute) throw new NotFoundError('Custom Attribute');
    return presentCustomAttribute(attribute);
  }

  /** Creates the attribute, or updates it when the user already has one with this key. */
  async set(owner: User, key: string, value: string): Promise<CustomAttributeShape> {
    if (value === '') throw BadRequestError.invalid('value', "can't be blank");
    const existing = await this.ctx.em.findOne(CustomAttribute, { user: owner, key });
    const attribute = existing ?? this.ctx.em.create(CustomAttribute, { user: owner, key, value });
    attribute.value = value;
    await this.ctx.em.flush();
    return presentCustomAttribute(attribute);
  }

  async delete(owner: User, key: string): Promise<void> {
    const attribute = await this.ctx.em.findOne(CustomAttribute, { user: owner, key });
    if (!attribute) throw new NotFoundError('Custom Attribute');
    await this.ctx.em.remove(attribute).flush();
  }
}
