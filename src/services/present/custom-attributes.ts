import type { CustomAttribute } from '../../db/entities/index.js';
import type { CustomAttribute as CustomAttributeShape } from '../../schemas/custom-attributes.js';
import type { View } from './view.js';

export function presentCustomAttributes(attributes: CustomAttribute[], _view: View): CustomAttributeShape[] {
  return attributes.map((attribute) => ({ key: attribute.key, value: attribute.value }));
}

export const presentCustomAttribute = (attribute: CustomAttribute, view: View): CustomAttributeShape =>
  presentCustomAttributes([attribute], view)[0];
