import { Type, type Static, type TSchema } from 'typebox';

/** The largest value of the database's integer columns: whole-number inputs stay within it. */
export const INT32_MAX = 2147483647;

/**
 * `T` or JSON null. Null comes first: Ajv coerces inputs branch by branch, and with `T` first it would
 * turn a given null into `""` (or `[""]`) before trying the null branch.
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([Type.Null(), schema]);

/** An ISO 8601 timestamp as the API writes it (`2017-11-21T10:00:00.000Z`). */
export const DateTime = Type.String({ format: 'date-time' });

/** A date as the API writes it (`YYYY-MM-DD`). */
export const DateOnly = Type.String({ format: 'date' });

/** An ISO 8601 date or timestamp as a client may send it. */
export const DateTimeInput = Type.String({ format: 'iso8601' });

/** Page selection, accepted by every list. */
export const Pagination = {
  page: Type.Optional(Type.Integer({ description: 'Page to return, from 1', default: 1, maximum: INT32_MAX })),
  per_page: Type.Optional(Type.Integer({ description: 'Items per page (maximum 100)', default: 20 })),
};

/** A file sent as a multipart form field. */
export const Upload = Type.Object(
  {
    filename: Type.String(),
    content_type: Type.String(),
    data: Type.Unsafe<Uint8Array>({ description: 'file content' }),
  },
  { description: 'a file sent as a multipart/form-data field', format: 'binary' },
);

/** A file answered as it is (`raw` routes): its content type and bytes. */
export const RawFile = Type.Object(
  { content_type: Type.String(), data: Type.Unsafe<Uint8Array>({ description: 'file content' }) },
  { title: 'RawFile' },
);
export type RawFile = Static<typeof RawFile>;

/** Body of a call whose answer is a bare boolean (block, unblock). */
export const BooleanResult = Type.Boolean();
