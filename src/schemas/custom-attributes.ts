import { Type, type Static } from 'typebox';
import { BoundedText, Int32 } from './common.js';

export const CustomAttribute = Type.Object({ key: Type.String(), value: Type.String() }, { additionalProperties: false, title: 'CustomAttribute' });
export type CustomAttribute = Static<typeof CustomAttribute>;

/** Keys and values: 255 characters, as the original's custom attribute columns. */
export const CustomAttributePath = Type.Object({ id: Int32({ description: 'user ID' }), key: BoundedText() });
export const SetCustomAttributeInput = Type.Object({ value: BoundedText() });
