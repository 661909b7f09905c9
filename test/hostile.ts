/**
 * Hostile values for route inputs, by the kind of property they are wrong (or merely unusual) for: the
 * validators' fuzz test (test/validators.test.ts) tries every one on every property, the robustness test
 * (test/robustness.test.ts) a few on each property over HTTP.
 */
import qs from 'qs';

/** What a property's schema takes; each hostile value is tried where it is wrong or unusual. */
export type Kind = 'integer' | 'number' | 'boolean' | 'string' | 'array' | 'record' | 'file';
export const ALL: Kind[] = ['integer', 'number', 'boolean', 'string', 'array', 'record', 'file'];

export interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  const?: unknown;
  format?: string;
  properties?: Record<string, JsonSchema>;
}

export function kindsOf(schema: JsonSchema): Kind[] {
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap(kindsOf))];
  if (schema.const !== undefined) return [typeof schema.const === 'number' ? 'integer' : 'string'];
  switch (schema.type) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'string':
    case 'array':
      return [schema.type];
    case 'object':
      return [schema.format === 'binary' ? 'file' : 'record'];
    case 'null':
      return [];
    default:
      return ALL;
  }
}

export const propertiesOf = (schema: unknown): Record<string, JsonSchema> => (schema as JsonSchema | undefined)?.properties ?? {};

/** JSON text inserted as is: numbers that JSON can write but JavaScript cannot hold. */
export class Raw {
  constructor(readonly text: string) {}
}

export interface Hostile {
  label: string;
  value: unknown;
  /** The kinds of property it is sent to. */
  to: Kind[];
  /** Its text form for form fields and query strings, when that says something the JSON value does not. */
  text?: string | Record<string, unknown> | unknown[];
}

export const LONG = 'x'.repeat(100_000);
/**
 * Past every length limit, short enough for a request line (Node refuses lines past 16 KB) and for the
 * answer's `Link` header, which repeats the query string in four URLs.
 */
export const LONG_FOR_URL = 'x'.repeat(2000);

export const HOSTILE: Hostile[] = [
  { label: 'a word', value: 'not-a-number', to: ['integer', 'number', 'boolean', 'array', 'record', 'file'], text: 'not-a-number' },
  { label: 'an object', value: { a: 'b' }, to: ['integer', 'number', 'boolean', 'string', 'array', 'file'], text: { a: 'b' } },
  { label: 'an array of objects', value: [{ a: 'b' }, { c: 'd' }], to: ALL, text: [{ a: 'b' }, { c: 'd' }] },
  { label: 'a 100000-character string', value: LONG, to: ALL, text: LONG_FOR_URL },
  { label: 'a number beyond int32', value: 99999999999, to: ['integer', 'number', 'boolean', 'string'], text: '99999999999' },
  { label: 'a negative number', value: -1, to: ['integer', 'number', 'boolean'], text: '-1' },
  { label: 'a fraction', value: 1.5, to: ['integer', 'boolean'] },
  { label: 'a number past 2^53', value: new Raw('123456789012345678901234567890'), to: ['integer', 'number'] },
  { label: 'a number too big for a double', value: new Raw('1e400'), to: ['integer', 'number', 'string'], text: '1e400' },
  { label: 'null', value: null, to: ALL },
  { label: 'true', value: true, to: ['integer', 'number', 'string', 'array'] },
  { label: 'an empty string', value: '', to: ALL, text: '' },
  { label: 'a NUL character', value: 'a\u0000b', to: ['string', 'array', 'record', 'integer'], text: 'a\u0000b' },
  { label: 'unicode and emoji', value: 'Zoë 名前 😀 \u202e', to: ['string', 'array'], text: 'Zoë 名前 😀 \u202e' },
  { label: 'a lone surrogate', value: 'a\ud800b', to: ['string'] },
  { label: '% _ and a backslash', value: '%_\\', to: ['string'] },
  { label: 'an e-mail address that grows when lower-cased', value: `${'İ'.repeat(200)}@example.com`, to: ['string'] },
  { label: 'an array of strings', value: ['a', 'b'], to: ['string', 'integer', 'boolean'] },
  { label: 'a nested array', value: [[['a']]], to: ['string', 'array'] },
  { label: 'an array with a NUL character', value: ['a\u0000b'], to: ['array'] },
  { label: 'an object with a NUL character in a key', value: { 'a\u0000b': 'c' }, to: ['record'], text: { 'a\u0000b': 'c' } },
  { label: 'an object with a 100000-character key', value: { [LONG]: 'c' }, to: ['record'] },
  { label: 'a nested object', value: { a: { b: { c: 'd' } } }, to: ['record', 'file'], text: { a: { b: { c: 'd' } } } },
];

/** The hostile values for a property of this schema. */
export const hostileFor = (schema: JsonSchema): Hostile[] => {
  const kinds = kindsOf(schema);
  return HOSTILE.filter((hostile) => hostile.to.some((kind) => kinds.includes(kind)));
};

/** Path segments as sent, percent-encoded where they say so. */
export const HOSTILE_SEGMENTS: string[] = [
  '99999999999',
  '-1',
  '0',
  '1.5',
  'Infinity',
  '9'.repeat(400),
  'abc',
  '%2F',
  '..%2F..%2Fuser',
  'a%00b',
  '%E0%A4%A',
  '%F0%9F%98%80',
  '%C4%B0',
  LONG_FOR_URL,
];

/** A value as JavaScript holds it once JSON is parsed: a Raw number becomes the double (or Infinity) it reads as. */
export const parsedValue = (value: unknown): unknown => (value instanceof Raw ? JSON.parse(value.text) : value);

export function describeValue(value: unknown): string {
  if (value instanceof Raw) return value.text;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 40)}…(${text.length} chars)` : text;
}

/** JSON text for an input, with Raw values written as they are. */
export function jsonText(input: Record<string, unknown>): string {
  const raws: string[] = [];
  const text = JSON.stringify(input, (_key, value: unknown) => {
    if (!(value instanceof Raw)) return value;
    raws.push(value.text);
    return `__RAW_${raws.length - 1}__`;
  });
  return text.replace(/"__RAW_(\d+)__"/g, (_match, index: string) => raws[Number(index)]);
}

/** JSON text for an input with one more member written as is. */
export function withMember(input: Record<string, unknown>, member: string): string {
  const text = jsonText(input);
  return text === '{}' ? `{${member}}` : `${text.slice(0, -1)},${member}}`;
}

/** Form or query text (nested objects and arrays as `a[b]=c`, `a[0][b]=c`). */
export const formText = (input: Record<string, unknown>): string =>
  qs.stringify(Object.fromEntries(Object.entries(input).map(([name, value]) => [name, value instanceof Raw ? value.text : value])));
