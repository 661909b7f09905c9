import { Type, type Static } from 'typebox';
import { BoundedText } from './common.js';

export const CustomAttribute = Type.Object(
  { key: Type.String(), value: Type.String() },
  { additionalProperties: false, title: 'CustomAttribute' },
);
export type CustomAttribute = Static<typeof CustomAttribute>;

/** Values: 255 characters, as the original's custom attribute column (keys: src/api/params.ts). */
export const SetCustomAttributeInput = Type.Object({ value: BoundedText() });
