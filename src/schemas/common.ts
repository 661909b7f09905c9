import type { Readable } from 'node:stream';
import { Type, type Static, type TBoolean, type TInteger, type TNumber, type TSchema } from 'typebox';

/** The range of the database's integer columns: whole-number inputs stay within it. */
export const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

/**
 * The original service's limit for one-line text (names, titles, e-mail addresses, URLs): its `string`
 * columns, 255 characters.
 */
export const STRING_MAX = 255;

/** The longest branch or tag name, and revision, a parameter may give (git's own limit is the file system's). */
export const REF_MAX = 1024;

/** The longest path of a file in a repository (the repository layer's own bound: git/edit.ts). */
export const FILE_PATH_MAX = 4096;

/** The longest password the original accepts (Devise's 8 to 128 characters); a longer one can never match. */
export const PASSWORD_MAX = 128;

/**
 * A list parameter of names (scopes, storages, sign-in sources, visibility levels): the original has no
 * limit; 100 is far past any real list, and duplicates are allowed.
 */
export const LIST_MAX = 100;

/** One-line text of at most `maxLength` characters (the original's string column by default). */
export const BoundedText = (options: { maxLength?: number; description?: string } = {}) =>
  Type.String({ maxLength: STRING_MAX, ...options });

/**
 * A whole number PostgreSQL's integer columns hold. IDs are not limited to positive numbers: `0` and `-1`
 * find nothing and answer 404, as in the original.
 */
export const Int32 = (options: { description?: string; default?: number } = {}) =>
  Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX, ...options });

/**
 * `T` or JSON null. Null comes first: Ajv coerces inputs branch by branch, and with `T` first it would
 * turn a given null into `""` (or `[""]`) before trying the null branch.
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([Type.Null(), schema]);

/**
 * A number or a boolean, or JSON null, as an input: one schema of two types rather than Nullable's union, because Ajv
 * coerces a union's `0` and `false` to its null branch (a label's priority of 0, a flag turned off). An empty form
 * value is null.
 */
export const NullableValue = <T extends TInteger | TNumber | TBoolean>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });

/** An ISO 8601 timestamp as the API writes it (`2017-11-21T10:00:00.000Z`). */
export const DateTime = Type.String({ format: 'date-time' });

/** A date as the API writes it (`YYYY-MM-DD`). */
export const DateOnly = Type.String({ format: 'date' });

/**
 * The day something (a token, a membership, a share) expires: a date, or a timestamp whose date counts (go-gitlab
 * sends one), as in the original. The day after it must be one the API can hold too: 9999-12-30 is the last.
 */
export const ExpiryDate = Type.String({
  format: 'iso8601',
  formatMaximum: '9999-12-30',
  maxLength: 64,
  description: 'date (`2027-01-05`) or timestamp; the date counts',
});

/**
 * An ISO 8601 date or timestamp as a client may send it: years 0001–9999 (the `iso8601` format), so that
 * both JavaScript and PostgreSQL can hold it.
 */
export const DateTimeInput = Type.String({ format: 'iso8601', maxLength: 64 });

/**
 * What the pipeline does when someone but an administrator gives an administrators' parameter: refuse the
 * call (403), drop the parameter, or refuse only when it comes with another parameter (a filter made of
 * two) and drop it otherwise.
 */
export type AdminOnlyRule = 'forbidden' | 'ignored' | { forbiddenWith: string };

/**
 * A parameter for administrators only, treated as the original service treats it when anyone else gives
 * it; the pipeline enforces it for every route, and the OpenAPI document shows it as `x-admin-only`.
 */
export const AdminOnly = <T extends TSchema>(schema: T, otherwise: AdminOnlyRule): T => ({ ...schema, 'x-admin-only': otherwise });

/** Page selection, accepted by every list; out-of-range pages and sizes are read as the nearest valid one. */
export const Pagination = {
  page: Type.Optional(Int32({ description: 'Page to return, from 1', default: 1 })),
  per_page: Type.Optional(Int32({ description: 'Items per page (maximum 100)', default: 20 })),
};

/**
 * A file sent as a multipart form field; in process, `data` is a Uint8Array (a Buffer will do). Anything
 * else given for it (a JSON value, a form string) is refused in the validation layer as "must be a file".
 */
export const Upload = Type.Object(
  {
    // The stored file name and content type columns' sizes.
    filename: BoundedText(),
    content_type: BoundedText({ maxLength: 128 }),
    data: Type.Unsafe<Uint8Array>({ description: 'file content' }),
  },
  { description: 'a file sent as a multipart/form-data field', format: 'binary' },
);

/** A file answered as it is (`raw` routes) from bytes at hand (an uploaded avatar): its content type and bytes. */
export const RawFile = Type.Object(
  { content_type: Type.String(), data: Type.Unsafe<Uint8Array>({ description: 'file content' }) },
  { title: 'RawFile' },
);
export type RawFile = Static<typeof RawFile>;

/**
 * The content of a stream: a Node.js Readable in process (read it to its end, or destroy it, which stops the
 * work behind it); over HTTP, the response body, sent as it is read.
 */
export const ByteStream = Type.Unsafe<Readable>({
  description: 'the bytes, as a stream (a Node.js Readable in process; the response body over HTTP)',
});

/** A repository file answered as it is (`raw` routes), streamed rather than held whole: its content type, size and bytes. */
export const StreamedFile = Type.Object(
  { content_type: Type.String(), size: Type.Integer({ minimum: 0, description: 'bytes' }), data: ByteStream },
  { title: 'StreamedFile' },
);
export type StreamedFile = Static<typeof StreamedFile>;

/** Body of a call whose answer is a bare boolean (block, unblock). */
export const BooleanResult = Type.Boolean();
