import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from 'typebox';
import { BadRequestError, type ValidationMessages } from '../errors.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?)?$/i;

function withFormats(ajv: Ajv): Ajv {
  (addFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
  ajv.addFormat('iso8601', { type: 'string', validate: (value: string) => ISO_8601.test(value) && !Number.isNaN(Date.parse(value)) });
  return ajv;
}

/**
 * Inputs: coerce what HTTP carries as strings (integers, booleans, single values for arrays) and drop
 * parameters the route does not know, as the original service ignores them.
 */
const inputAjv = withFormats(new Ajv({ coerceTypes: 'array', removeAdditional: 'all', useDefaults: false, allErrors: true, strict: false, strictNumbers: true }));
/**
 * Coerced inputs, checked again as they are. Coercion can answer "valid" for what the schema does not
 * allow: inside `anyOf` it unwraps nested one-item arrays (`[["a"]]` passes as a list of strings), and
 * `"1e400"` becomes an Infinity that passes as an integer. No number past a double's range is usable.
 */
const coercedAjv = withFormats(new Ajv({ allErrors: true, strict: false, strictNumbers: true }));
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
  const properties = (schema as { properties?: Record<string, { type?: string; anyOf?: { type?: string }[] }> }).properties;
  if (!properties) return value;
  const result: Record<string, unknown> = { ...value };
  const invalid: ValidationMessages = {};
  for (const [name, property] of Object.entries(properties)) {
    const given = result[name];
    const types = property.type ? [property.type] : (property.anyOf ?? []).map((branch) => branch.type);
    // Ajv would coerce null to 0, false or "": a null where the schema has no null is an error instead.
    if (given === null && !types.includes('null')) invalid[name] = ['is invalid'];
    // No text column can hold a NUL character, nor JSON a lone UTF-16 surrogate: in values or in keys.
    if (unstorable(given)) invalid[name] = ['is invalid'];
    if (typeof given === 'string') {
      if (types.includes('boolean')) {
        const lower = given.toLowerCase();
        if (TRUE.has(lower)) result[name] = true;
        else if (FALSE.has(lower)) result[name] = false;
      } else if (types.includes('array')) {
        result[name] = given === '' ? [] : given.split(/[,\n]/).map((item) => item.trim()).filter((item) => item !== '');
      }
    }
  }
  if (Object.keys(invalid).length) throw new BadRequestError(invalid);
  return result;
}

/** A NUL character, or a surrogate half without its other half (text that is not well-formed UTF-16). */
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unstorable(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE_TEXT.test(value);
  if (Array.isArray(value)) return value.some(unstorable);
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    return Object.entries(value).some(([key, item]) => UNSTORABLE_TEXT.test(key) || unstorable(item));
  }
  return false;
}

const messageFor = (error: ErrorObject): string => {
  switch (error.keyword) {
    case 'enum':
    case 'const':
    case 'anyOf':
      return 'does not have a valid value';
    case 'minimum':
    case 'exclusiveMinimum':
      return `must be greater than or equal to ${(error.params as { limit: number }).limit}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `must be less than or equal to ${(error.params as { limit: number }).limit}`;
    case 'minItems':
      return 'is empty';
    case 'minLength':
      return 'is too short';
    case 'maxLength':
      return 'is too long';
    default:
      return 'is invalid';
  }
};

/** `/actions/0/file_path` → `actions[0][file_path]`, the way the original service names nested parameters. */
function parameterName(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  return parts.map((part, index) => (index === 0 ? part : `[${part}]`)).join('');
}

/**
 * Validates and coerces `value` against `schema`. A missing required attribute answers body shape 4;
 * anything else body shape 5, naming each parameter.
 */
export function parseInput<T>(schema: TSchema, value: unknown): T {
  const data = value && typeof value === 'object' && !Array.isArray(value) ? normalizeTopLevel(schema, value as Record<string, unknown>) : value;
  const validate = compiled(inputValidators, inputAjv, schema);
  if (validate(data)) {
    const recheck = compiled(coercedValidators, coercedAjv, schema);
    if (recheck(data)) return data as T;
    throw new BadRequestError(validationMessages(recheck.errors ?? []));
  }
  const errors = validate.errors ?? [];
  const missing = errors.find((error) => error.keyword === 'required');
  if (missing) throw BadRequestError.missing(parameterName(missing.instancePath, (missing.params as { missingProperty: string }).missingProperty));
  throw new BadRequestError(validationMessages(errors));
}

/** Body shape 5: each parameter named by its path, with its messages. */
function validationMessages(errors: ErrorObject[]): ValidationMessages {
  const messages: ValidationMessages = {};
  for (const error of errors) {
    // An anyOf failure also reports each of its branches; the anyOf error alone says it.
    if (errors.some((other) => other.keyword === 'anyOf' && error.schemaPath.startsWith(`${other.schemaPath}/`))) continue;
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
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`);
}
