import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from 'typebox';
import { BadRequestError, type ValidationMessages } from '../errors.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?)?$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Dates and times are accepted in years 0001–9999, as instants too (a time zone cannot carry one past
 * them): four-digit years are what clients write, and both JavaScript (±275760) and PostgreSQL (no year
 * 0; 4713 BC–294276 AD) hold every one of them.
 */
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

const inRange = (time: number): boolean => time >= EARLIEST && time <= LATEST;

/** `YYYY-MM-DD` naming a day of the calendar: JavaScript reads 2023-02-30 as March 2, which it is not. */
const isDay = (text: string): boolean => {
  if (!DAY.test(text)) return false;
  const time = Date.parse(`${text}T00:00:00Z`);
  return inRange(time) && new Date(time).toISOString().startsWith(text);
};

function withFormats(ajv: Ajv): Ajv {
  (addFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
  ajv.addFormat('date', { type: 'string', validate: isDay });
  ajv.addFormat('iso8601', {
    type: 'string',
    validate: (value: string) => ISO_8601.test(value) && isDay(value.slice(0, 10)) && inRange(Date.parse(value)),
    // `formatMaximum` and its kin bound the day a value names (a token's last day), whatever time it adds.
    compare: (a: string, b: string) => {
      const [dayA, dayB] = [a.slice(0, 10), b.slice(0, 10)];
      // NaN fails no comparison: a value that is no date has its format error already.
      return isDay(dayA) && isDay(dayB) ? (dayA < dayB ? -1 : dayA > dayB ? 1 : 0) : NaN;
    },
  });
  return ajv;
}

/**
 * Inputs: coerce what HTTP carries as strings (integers, booleans, single values for arrays) and drop
 * parameters the route does not know, as the original service ignores them.
 */
const inputAjv = withFormats(
  // `verbose`: errors carry their schema, for the messages of nullable values (see `reported`).
  new Ajv({
    coerceTypes: 'array',
    removeAdditional: 'all',
    useDefaults: false,
    allErrors: true,
    verbose: true,
    strict: false,
    strictNumbers: true,
  }),
);
/**
 * Coerced inputs, checked again as they are. Coercion can answer "valid" for what the schema does not
 * allow: inside `anyOf` it unwraps nested one-item arrays (`[["a"]]` passes as a list of strings), and
 * `"1e400"` becomes an Infinity that passes as an integer. No number past a double's range is usable.
 */
const coercedAjv = withFormats(new Ajv({ allErrors: true, verbose: true, strict: false, strictNumbers: true }));
/** Responses: checked as they are, for the test suite and the `checkResponses` option. */
const outputAjv = withFormats(new Ajv({ allErrors: true, strict: false }));

const inputValidators = new WeakMap<TSchema, ValidateFunction>();
const coercedValidators = new WeakMap<TSchema, ValidateFunction>();
const outputValidators = new WeakMap<TSchema, ValidateFunction>();

function compiled(cache: WeakMap<TSchema, ValidateFunction>, ajv: Ajv, schema: TSchema): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(schema, validate);
  }
  return validate;
}

const TRUE = new Set(['true', 't', '1', 'yes', 'on']);
const FALSE = new Set(['false', 'f', '0', 'no', 'off']);

/**
 * Before Ajv, per top-level parameter: refuse what coercion would quietly turn into something else (a null,
 * text no column can store), and read what coercion does not cover: booleans in the spellings clients send
 * (`1`, `t`, `yes`) and comma-separated lists (`labels=a,b`) for array parameters.
 */
function normalizeTopLevel(schema: TSchema, value: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, PropertySchema> }).properties;
  if (!properties) return value;
  const result: Record<string, unknown> = { ...value };
  const invalid: ValidationMessages = {};
  for (const [name, property] of Object.entries(properties)) {
    const given = result[name];
    const types = property.type ? [property.type].flat() : (property.anyOf ?? []).map((branch) => branch.type);
    // Ajv would coerce null to 0, false or "": a null where the schema has no null is an error instead.
    if (given === null && !types.includes('null')) invalid[name] = ['is invalid'];
    // Files arrive only as top-level fields. Without this, Ajv would name the file's inner fields.
    else if (isUpload(property) && given !== undefined && given !== null && !isFile(given)) invalid[name] = ['must be a file'];
    // No text column can hold a NUL character, nor JSON a lone UTF-16 surrogate: in values or in keys.
    else if (unstorable(given)) invalid[name] = ['is invalid'];
    if (typeof given === 'string') {
      if (types.includes('boolean')) {
        const lower = given.toLowerCase();
        if (TRUE.has(lower)) result[name] = true;
        else if (FALSE.has(lower)) result[name] = false;
      } else if (types.includes('array')) {
        result[name] =
          given === ''
            ? []
            : given
                .split(/[,\n]/)
                .map((item) => item.trim())
                .filter((item) => item !== '');
      }
    }
  }
  if (Object.keys(invalid).length) throw new BadRequestError(invalid);
  return result;
}

interface PropertySchema {
  /** A list of types (`['integer', 'null']`) where a nullable value must not be coerced between them. */
  type?: string | string[];
  format?: string;
  anyOf?: PropertySchema[];
}

/** The `Upload` schema (an object of format `binary`), alone or as a branch. */
const isUpload = (schema: PropertySchema): boolean =>
  (schema.type === 'object' && schema.format === 'binary') || !!schema.anyOf?.some(isUpload);

/**
 * A file: what the HTTP adapter makes of a multipart file field, or what an in-process caller passes. JSON
 * and form fields cannot carry bytes, so a value without them is text or an object posing as a file.
 */
const isFile = (value: unknown): boolean =>
  !!value && typeof value === 'object' && (value as { data?: unknown }).data instanceof Uint8Array;

/** A NUL character, or a surrogate half without its other half (text that is not well-formed UTF-16). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it finds the NUL character that PostgreSQL text cannot store
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unstorable(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE_TEXT.test(value);
  if (Array.isArray(value)) return value.some(unstorable);
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    return Object.entries(value).some(([key, item]) => UNSTORABLE_TEXT.test(key) || unstorable(item));
  }
  return false;
}

const limitOf = (error: ErrorObject): number | string => (error.params as { limit: number | string }).limit;

/** The original's (Rails') wording where it has one. */
const messageFor = (error: ErrorObject): string => {
  switch (error.keyword) {
    case 'enum':
    case 'const':
    case 'anyOf':
      return 'does not have a valid value';
    case 'minimum':
    case 'exclusiveMinimum':
      return `must be greater than or equal to ${limitOf(error)}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `must be less than or equal to ${limitOf(error)}`;
    case 'formatMaximum':
      return `must be on or before ${limitOf(error)}`;
    case 'minItems':
      return 'is empty';
    case 'maxItems':
      return `is too long (maximum is ${limitOf(error)} items)`;
    case 'maxProperties':
      return `is too long (maximum is ${limitOf(error)} entries)`;
    case 'minLength':
      return `is too short (minimum is ${limitOf(error)} characters)`;
    case 'maxLength':
      return `is too long (maximum is ${limitOf(error)} characters)`;
    default:
      return 'is invalid';
  }
};

/** `/actions/0/file_path` → `actions[0][file_path]`, the way the original service names nested parameters. */
function parameterName(pointer: string, extra?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  return parts.map((part, index) => (index === 0 ? part : `[${part}]`)).join('');
}

/**
 * Validates and coerces `value` against `schema`. A missing required attribute answers body shape 4;
 * anything else body shape 5, naming each parameter.
 */
export function parseInput<T>(schema: TSchema, value: unknown): T {
  const data =
    value && typeof value === 'object' && !Array.isArray(value) ? normalizeTopLevel(schema, value as Record<string, unknown>) : value;
  const validate = compiled(inputValidators, inputAjv, schema);
  if (validate(data)) {
    const recheck = compiled(coercedValidators, coercedAjv, schema);
    if (recheck(data)) return data as T;
    throw new BadRequestError(validationMessages(recheck.errors ?? []));
  }
  const errors = validate.errors ?? [];
  const missing = errors.find((error) => error.keyword === 'required');
  if (missing)
    throw BadRequestError.missing(parameterName(missing.instancePath, (missing.params as { missingProperty: string }).missingProperty));
  throw new BadRequestError(validationMessages(errors));
}

/**
 * The errors worth a message. An anyOf failure also reports each of its branches, and the anyOf error
 * alone says it; but a nullable value that is not null fails as its other branch does (`is too long`).
 * A key that fails `propertyNames` reports its own problem, and then this summary of it.
 */
function reported(errors: ErrorObject[]): ErrorObject[] {
  const hidden = new Set<ErrorObject>(errors.filter((error) => error.keyword === 'propertyNames'));
  for (const anyOf of errors.filter((error) => error.keyword === 'anyOf')) {
    const branches = anyOf.schema as { type?: unknown }[];
    const nullBranch = branches.findIndex((branch) => branch.type === 'null');
    const shown = branches.length === 2 && nullBranch !== -1 ? `${anyOf.schemaPath}/${1 - nullBranch}/` : undefined;
    if (shown) hidden.add(anyOf);
    for (const error of errors) {
      if (error.schemaPath.startsWith(`${anyOf.schemaPath}/`) && !(shown && error.schemaPath.startsWith(shown))) hidden.add(error);
    }
  }
  return errors.filter((error) => !hidden.has(error));
}

/** Body shape 5: each parameter named by its path, with its messages. */
function validationMessages(errors: ErrorObject[]): ValidationMessages {
  const messages: ValidationMessages = {};
  for (const error of reported(errors)) {
    const name = parameterName(error.instancePath) || 'base';
    const list = (messages[name] ??= []) as string[];
    const message = messageFor(error);
    if (!list.includes(message)) list.push(message);
  }
  return messages;
}

/** Checks a response against its declared schema; returns the mismatches, empty when it conforms. */
export function responseMismatches(schema: TSchema, value: unknown): string[] {
  const validate = compiled(outputValidators, outputAjv, schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`,
  );
}
