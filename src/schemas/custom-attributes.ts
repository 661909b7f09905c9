import { Type, type Static } from 'typebox';

export const CustomAttribute = Type.Object({ key: Type.String(), value: Type.String() }, { additionalProperties: false, title: 'CustomAttribute' });
export type CustomAttribute = Static<typeof CustomAttribute>;

export const CustomAttributePath = Type.Object({ id: Type.Integer({ description: 'user ID' }), key: Type.String() });
export const SetCustomAttributeInput = Type.Object({ value: Type.String() });
