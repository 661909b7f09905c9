import { CustomAttribute, type User } from '../../db/entities/index.js';
import { BadRequestError } from '../../errors.js';
import type { CustomAttribute as CustomAttributeShape } from '../../schemas/custom-attributes.js';
import { presentCustomAttribute, presentCustomAttributes } from '../present/custom-attributes.js';
import { UserItemsService } from './user-items.js';

export class CustomAttributesService extends UserItemsService<CustomAttribute, CustomAttributeShape, string> {
  protected readonly kind = {
    entity: CustomAttribute,
    notFound: 'Custom Attribute',
    orderBy: { key: 'asc' },
    present: presentCustomAttributes,
  } as const;

  protected named(owner: User, key: string) {
    return { key, user: owner };
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
}
