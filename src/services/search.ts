/** A case-insensitive substring search (`$ilike`): `%` and `_` in the text match themselves. */
export const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
