// Values for the fuzz, from the JSON schemas an OpenAPI document gives: values shaped like
// the schema (what a well-behaved client sends) and hostile ones (what an attacker sends).
import fc from 'fast-check';

/** A JSON schema as the documents carry it. */
export type Schema = Record<string, any>;

/** Strings that have broken servers: NUL, lone surrogates, escapes, odd Unicode, near-limits. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\uDBFF\uDFFF',
  '\uFEFF',
  '\u202E',
  'e\u0301',
  'ﬀ',
  'İ',
  'ß',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '👩‍👩‍👧',
  '%',
  '%00',
  '%ZZ',
  '\\',
  'a\\',
  '%_\\%',
  "'; DROP TABLE items; --",
  '" OR 1=1',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '${x}',
  '../../etc/passwd',
  '..',
  '.',
  '/',
  '\r\n',
  '\t',
  'null',
  'undefined',
  'NaN',
  'true',
  '[]',
  '{}',
  '0x10',
  '1e999',
  '-0',
  '00001',
  '+1',
  '9007199254740993',
  '-9223372036854775809',
  '1.5',
  ' 1',
  '١٢٣',
  '2024-02-30',
  '2024-13-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '10000-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '1970-01-01T00:00:00+14:01',
  'Z',
  'a@b',
  '@',
  'a@b@c',
  'user@[127.0.0.1]',
];

/** A hostile string: a known breaker, random Unicode (lone surrogates included), or a long run. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
      minLength: 1,
      maxLength: 4,
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '\u0000', 'é', '%', '\\', '😀', 'a@'), fc.integer({ min: 200, max: 70_000 }))
      .map(([s, n]) => s.repeat(n)),
  },
);

/** A JSON value nested `depth` levels deep. */
export const deepJson = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

/** An object with `n` keys. */
export const wideObject = (n: number): Record<string, number> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

/** Any hostile JSON value: wrong types, odd numbers, deep or wide structures, nasty strings. */
export const nastyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      -0,
      1e308,
      -1e308,
      2 ** 53,
      2 ** 63,
      -(2 ** 31) - 1,
      [],
      {},
      [null],
      { '': 1 },
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }).map((depth) => deepJson(depth)) },
  { weight: 1, arbitrary: fc.constantFrom(10, 1001, 5000).map(wideObject) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.integer(), { maxLength: 2000 }) },
);

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  'date-time': fc
    .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  date: fc
    .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  email: fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), fc.constantFrom('example.com', 'test.org'))
    .map(([user, host]) => `${user}@${host}`),
  uri: fc.webUrl(),
  uuid: fc.uuid(),
};

/** Unicode letters and digits of at most `max` code points (`min` at least), or ASCII for names. */
function text(min: number, max: number): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_'.split('')) },
    { weight: 1, arbitrary: fc.constantFrom('é', 'Ω', 'ж', '中', 'ß', ' ', '-', '.') },
  );
  return fc.string({ unit, minLength: min, maxLength: Math.max(min, Math.min(max, 24)) });
}

function resolve(schema: Schema, root: Schema): Schema {
  if (typeof schema?.$ref === 'string' && schema.$ref.startsWith('#/')) {
    return (
      schema.$ref
        .slice(2)
        .split('/')
        .reduce((node: any, part: string) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root) ?? {}
    );
  }
  return schema ?? {};
}

/** A value shaped like `schema` (types, bounds, formats, required properties); patterns are not honoured. */
export function shapedValue(schema: Schema, root: Schema = {}, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, root);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const choices = s.oneOf ?? s.anyOf;
  if (Array.isArray(choices) && choices.length > 0)
    return fc.oneof(
      ...choices.map((c: Schema) => shapedValue({ ...s, oneOf: undefined, anyOf: undefined, ...c }, root, depth)),
    );
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : ['string'];
  return fc.oneof(...types.map((type) => ofType(type, s, root, depth)));
}

function ofType(type: string, s: Schema, root: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 100_000 });
    case 'number':
      return fc
        .double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true })
        .map((n) => Math.round(n * 100) / 100);
    case 'array':
      return depth > 3
        ? fc.constant([])
        : fc.array(shapedValue(s.items ?? {}, root, depth + 1), {
            minLength: s.minItems ?? 0,
            maxLength: Math.min(s.maxItems ?? 3, 3),
          });
    case 'object': {
      if (depth > 3) return fc.constant({});
      const properties: Record<string, Schema> = s.properties ?? {};
      const required = new Set<string>(s.required ?? []);
      const record = Object.fromEntries(
        Object.entries(properties).map(([name, p]) => [name, shapedValue(p, root, depth + 1)]),
      );
      return fc.record(record, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
    }
    default: {
      if (s.format && FORMATS[s.format]) return FORMATS[s.format];
      if (s.format === 'binary') return fc.string({ maxLength: 64 });
      if (typeof s.pattern === 'string') {
        const [min, max] = [s.minLength ?? 0, s.maxLength ?? 24];
        return fc
          .stringMatching(new RegExp(s.pattern, 'u'), { size: 'xsmall' })
          .filter((v) => v.length >= min && v.length <= max);
      }
      return text(s.minLength ?? 0, s.maxLength ?? 24);
    }
  }
}

/**
 * A value that breaks `schema` somewhere, or is hostile in general: a wrong type, a bound
 * crossed by one, a nasty string, a deep or wide structure.
 */
export function violatingValue(schema: Schema, root: Schema = {}): fc.Arbitrary<unknown> {
  const s = resolve(schema, root);
  const near: fc.Arbitrary<unknown>[] = [nastyJson];
  if (typeof s.maxLength === 'number')
    near.push(fc.constant('x'.repeat(s.maxLength + 1)), fc.constant('é'.repeat(s.maxLength + 1)));
  if (typeof s.minLength === 'number' && s.minLength > 0) near.push(fc.constant('x'.repeat(s.minLength - 1)));
  if (typeof s.maximum === 'number') near.push(fc.constant(s.maximum + 1));
  if (typeof s.minimum === 'number') near.push(fc.constant(s.minimum - 1));
  if (s.format === 'date-time' || s.format === 'date')
    near.push(
      fc.constantFrom(
        '2024-02-30T00:00:00Z',
        '10000-01-01T00:00:00Z',
        '2024-01-01',
        'yesterday',
        '2024-01-01T25:00:00Z',
      ),
    );
  if (s.format === 'email')
    near.push(fc.constantFrom('not-an-email', `${'a'.repeat(64)}@${'b'.repeat(250)}.com`, 'a@b', '\uD800@example.com'));
  if (s.type === 'object' || s.properties) {
    const properties = Object.entries<Schema>(s.properties ?? {});
    if (properties.length > 0) {
      // One property broken, the others shaped.
      near.push(
        fc
          .tuple(shapedValue(s, root), fc.constantFrom(...properties), nastyJson)
          .map(([value, [name], bad]) => ({ ...(value as object), [name]: bad })),
      );
    }
    near.push(
      shapedValue(s, root).map((value) => ({ ...(value as object), unexpected_field: 1, id: 1, is_superuser: true })),
    );
  }
  return fc.oneof(...near);
}
