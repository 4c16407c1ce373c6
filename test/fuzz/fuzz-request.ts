// The requests the fuzz sends for one operation: shaped like its document says, or broken
// on purpose (wrong types, odd strings, odd ids, bad query parameters and filter operators,
// wrong or missing content types, malformed and oversized bodies), as someone signed in or not.
import fc from 'fast-check';
import { OPERATORS } from '../../core/src/data/operators';
import type { Operation, Parameter } from './operations';
import { nastyJson, nastyString, shapedValue, violatingValue, type Schema } from './schema-values';

/** Who sends a request: the superuser, an ordinary user, or nobody; by cookie or bearer token. */
export type Caller = { who: 'admin' | 'user' | 'anonymous'; transport: 'session' | 'bearer' };

/** A request, ready to send (the body already encoded). */
export interface FuzzRequest {
  method: string;
  /** Path and query, percent-encoded (or deliberately mis-encoded). */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  caller: Caller;
  /** Forged or odd headers sent over the caller's own (a garbage token, cookie or CSRF header). */
  forged: Record<string, string>;
  /** What kind of request this is, for the failure message. */
  kind: string;
}

/** Values the app holds already, by parameter name, so some requests reach real rows. */
export type KnownValues = Record<string, string[]>;

// Every operator core accepts, so the two lists cannot drift, and spellings it must refuse.
const FILTER_OPERATORS = [...OPERATORS, 'regex', '', '__', 'EQ', 'in__in'];
const ODD_IDS = [
  '0',
  '-1',
  '01',
  '+1',
  '1.0',
  '1e3',
  '0x1',
  ' 1',
  '9007199254740993',
  '99999999999999999999999',
  '-9223372036854775809',
  'NaN',
  'null',
  'me',
  'admin',
  'x'.repeat(3000),
];
const RAW_BAD_ENCODINGS = ['%', '%ZZ', '%C0%AF', '%FF', '%ED%A0%80', '%00', 'a%2', '%E2%82'];
const WRONG_TYPES = [
  'text/plain',
  'application/xml',
  'application/json; charset=latin1',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'image/png',
  '',
  'application/json, text/plain',
  'APPLICATION/JSON',
];
const MALFORMED_JSON = [
  '{',
  '{"a":',
  'nul',
  '\uFEFF{}',
  '{"a":1e999999}',
  '['.repeat(5000),
  '{"__proto__":{"isAdmin":true}}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '"string"',
  '123',
  'null',
  '{"a":1,"a":2}',
];

/** Percent-encodes a value for a path segment or query part; a lone surrogate becomes its (invalid) UTF-8 bytes. */
export function encode(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff)
      out +=
        `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    else out += encodeURIComponent(char);
  }
  // A dot segment would be resolved away by the URL parser, reaching another route.
  return out === '.' || out === '..' || out === '' ? `${out}x` : out;
}

const asText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.map(asText).join(',')
      : value === undefined
        ? ''
        : typeof value === 'object' && value !== null
          ? JSON.stringify(value)
          : String(value);

// The fixed segments of the document's paths: a parameter spelled like one (`me` in
// `/users/{user_id}`) reaches another operation, whose answers are not this one's.
function literalSegments(op: Operation): Set<string> {
  return new Set(
    Object.keys(op.root.paths ?? {}).flatMap((path) =>
      path.split('/').filter((segment) => segment && !segment.startsWith('{')),
    ),
  );
}

function pathValue(param: Parameter, op: Operation, known: KnownValues): fc.Arbitrary<string> {
  const literal = literalSegments(op);
  return anyPathValue(param, op, known).filter((value) => !literal.has(value));
}

function anyPathValue(param: Parameter, op: Operation, known: KnownValues): fc.Arbitrary<string> {
  const shaped = shapedValue(param.schema, op.root).map((v) => encode(asText(v)));
  const fromKnown = known[param.name]?.length ? [fc.constantFrom(...known[param.name]).map(encode)] : [];
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(...fromKnown, shaped) },
    { weight: 2, arbitrary: fc.oneof(fc.constantFrom(...ODD_IDS), nastyString).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_BAD_ENCODINGS) },
  );
}

// Sort specs over the columns the filters name: `-price,name`, duplicates and blanks included.
function sortValues(columns: string[]): fc.Arbitrary<string> {
  const one = fc
    .tuple(fc.constantFrom('', '-', '+', '--'), fc.constantFrom(...columns, 'nope', 'id'))
    .map(([sign, column]) => `${sign}${column}`);
  return fc.array(one, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(','));
}

function queryPairs(op: Operation, known: KnownValues): fc.Arbitrary<[string, string][]> {
  const declared = op.parameters.filter((p) => p.in === 'query');
  const columns = [...new Set(declared.map((p) => p.name.split('__')[0]))];
  const shapedOf = (param: Parameter): fc.Arbitrary<string> => {
    const fromKnown = known[param.name]?.length ? [fc.constantFrom(...known[param.name])] : [];
    const special = param.name === 'sort' && columns.length ? [sortValues(columns)] : [];
    return fc.oneof(shapedValue(param.schema, op.root).map(asText), ...fromKnown, ...special);
  };
  const one = (param: Parameter): fc.Arbitrary<[string, string][]> =>
    fc.oneof(
      { weight: 3, arbitrary: shapedOf(param).map((v) => [[param.name, v]] as [string, string][]) },
      {
        weight: 2,
        arbitrary: fc
          .oneof(nastyString, fc.constantFrom(...ODD_IDS))
          .map((v) => [[param.name, v]] as [string, string][]),
      },
      // A repeated key.
      {
        weight: 1,
        arbitrary: fc
          .array(shapedValue(param.schema, op.root), { minLength: 2, maxLength: 4 })
          .map((vs) => vs.map((v) => [param.name, asText(v)] as [string, string])),
      },
    );
  // Filter-like keys the document does not list: unknown operators on known columns, unknown columns.
  const undeclared = fc
    .tuple(
      fc.oneof(fc.constantFrom(...(columns.length ? columns : ['id'])), nastyString),
      fc.constantFrom(...FILTER_OPERATORS),
      fc.oneof(
        nastyString,
        fc.constantFrom('1,2', ',', '1,', 'a,b,c', Array.from({ length: 1500 }, (_, i) => i).join(',')),
      ),
    )
    .map(([column, operator, value]) => [[operator ? `${column}__${operator}` : column, value]] as [string, string][]);
  const none: fc.Arbitrary<[string, string][][]> = fc.constant([]);
  const picks = declared.length
    ? fc
        .array(fc.constantFrom(...declared), { maxLength: 4 })
        .chain((params) => (params.length ? fc.tuple(...params.map(one)) : none))
    : none;
  return fc
    .tuple(picks, fc.option(undeclared, { freq: 3 }))
    .map(([pairs, extra]) => [...pairs.flat(), ...(extra ?? [])]);
}

// Node refuses a request head over 16 KiB (431) before any app sees it, so every part of
// the URL stays well under that: long values are still long enough to matter to the app.
const MAX_URL_PART = 3000;

function urlOf(op: Operation, pathValues: Record<string, string>, query: [string, string][]): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => clip(pathValues[name] ?? '1'));
  const parts: string[] = [];
  let length = path.length;
  for (const [k, v] of query) {
    const part = `${clip(encode(k))}=${clip(encode(v).replace(/%2C/g, ','))}`;
    if ((length += part.length + 1) > 4 * MAX_URL_PART) break;
    parts.push(part);
  }
  const qs = parts.join('&');
  return qs ? `${path}?${qs}` : path;
}

/** Cuts an encoded part to MAX_URL_PART characters, never inside a %XX escape. */
function clip(part: string): string {
  if (part.length <= MAX_URL_PART) return part;
  const cut = part.slice(0, MAX_URL_PART);
  const escape = cut.lastIndexOf('%');
  return escape > MAX_URL_PART - 3 ? cut.slice(0, escape) : cut;
}

interface Body {
  headers: Record<string, string>;
  body?: string | Uint8Array;
  kind: string;
}

function multipart(
  fields: Record<string, unknown>,
  file: { name: string; type: string; bytes: Uint8Array } | undefined,
): Body {
  const boundary = 'fuzzboundary7d3f';
  const parts: (string | Uint8Array)[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${asText(value)}\r\n`);
  if (file)
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      file.bytes,
      '\r\n',
    );
  parts.push(`--${boundary}--\r\n`);
  const chunks = parts.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : p));
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) body.set(chunk, (at += chunk.length) - chunk.length);
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body, kind: 'multipart' };
}

const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0,
  0, 0, 0x1f, 0x15, 0xc4, 0x89,
]);

function bodies(op: Operation): fc.Arbitrary<Body> {
  const types = op.body?.types ?? [];
  const json = types.find((t) => t.type === 'application/json');
  const form = types.find((t) => t.type === 'application/x-www-form-urlencoded');
  const files = types.find((t) => t.type === 'multipart/form-data');
  const schema: Schema = (json ?? form ?? files)?.schema ?? { type: 'object' };
  const asJson =
    (kind: string) =>
    (value: unknown): Body => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(value) ?? 'null',
      kind,
    });
  const options: fc.WeightedArbitrary<Body>[] = [
    // Hostile for every operation, one that takes no body included: the adapters read any body.
    { weight: 1, arbitrary: nastyJson.map(asJson('json: hostile value')) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...WRONG_TYPES), fc.oneof(fc.constantFrom(...MALFORMED_JSON), nastyString))
        .map(([type, text]): Body => ({
          headers: type ? { 'content-type': type } : {},
          body: text,
          kind: `wrong or malformed: ${type}`,
        })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('gzip', 'br', 'x-unknown').map((encoding): Body => ({
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: '{"not":"compressed"}',
        kind: `content-encoding ${encoding}`,
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ a: 'x'.repeat(1_100_000) }),
        kind: 'json: over the body limit',
      }),
    },
  ];
  if (!op.body) options.push({ weight: 4, arbitrary: fc.constant({ headers: {}, kind: 'no body' }) });
  if (json)
    options.push(
      { weight: 6, arbitrary: shapedValue(json.schema, op.root).map(asJson('json: shaped')) },
      { weight: 5, arbitrary: violatingValue(json.schema, op.root).map(asJson('json: violating')) },
    );
  if (form || (!json && !files && op.body)) {
    const encodeForm =
      (kind: string) =>
      (value: unknown): Body => {
        const entries =
          value !== null && typeof value === 'object' && !Array.isArray(value)
            ? Object.entries(value).map(([k, v]) => `${encode(k)}=${encode(asText(v))}`)
            : [`x=${encode(asText(value))}`];
        return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: entries.join('&'), kind };
      };
    options.push(
      { weight: 3, arbitrary: shapedValue(schema, op.root).map(encodeForm('form: shaped')) },
      { weight: 3, arbitrary: violatingValue(schema, op.root).map(encodeForm('form: violating')) },
    );
  }
  if (files) {
    const file = fc.record({
      name: fc.oneof(
        fc.constantFrom('a.png', 'a.jpg', '../../x.png', 'a\u0000.png', 'é.webp', `${'n'.repeat(300)}.png`),
        nastyString,
      ),
      type: fc.constantFrom(
        'image/png',
        'image/jpeg',
        'image/webp',
        'text/html',
        'application/octet-stream',
        'image/svg+xml',
      ),
      bytes: fc.oneof(fc.constant(PNG), fc.uint8Array({ maxLength: 256 }), fc.constant(new Uint8Array(0))),
    });
    options.push({
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.dictionary(fc.constantFrom('file', 'name', 'x', 'file[]'), nastyString, { maxKeys: 2 }),
          fc.option(file, { freq: 5 }),
        )
        .map(([fields, f]) => multipart(fields, f ?? undefined)),
    });
  }
  return fc.oneof(...options);
}

// Header values are Latin-1 without line breaks, so hostile ones are sent percent-encoded.
const headerText = fc.oneof(
  nastyString.map((v) => encode(v).slice(0, 4000)),
  fc.constantFrom('', ' ', 'null', 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.', 'Bearer', 'x'.repeat(8000)),
);

const forgedHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('Bearer ', 'bearer ', 'Basic ', '', 'Bearer  '), headerText)
      .map(([scheme, token]) => ({ authorization: `${scheme}${token}` })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('cs_session', 'cs_csrf', 'cs_refresh', 'koa.sess', ''), headerText)
      .map(([name, value]) => ({ cookie: `${name}=${value}` })),
  },
  { weight: 1, arbitrary: headerText.map((value) => ({ 'x-csrf-token': value })) },
  {
    weight: 1,
    arbitrary: fc.record({
      'x-forwarded-for': headerText,
      origin: fc.constantFrom('null', 'https://evil.example', 'http://127.0.0.1'),
      'sec-fetch-site': fc.constantFrom('cross-site', 'same-origin', 'none', '?'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      accept: fc.constantFrom('text/html', 'application/xml', '*/*;q=0', 'application/json;q=0'),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', 'x'),
    }),
  },
);

/** Every request the fuzz may send for `op`. */
export function requestsFor(op: Operation, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const path = fc
    .tuple(...pathParams.map((p) => pathValue(p, op, known)))
    .map((values) => Object.fromEntries(pathParams.map((p, i) => [p.name, values[i]])));
  const caller: fc.Arbitrary<Caller> = fc.record({
    who: op.secured
      ? fc.constantFrom<Caller['who']>('admin', 'admin', 'admin', 'user', 'anonymous')
      : fc.constantFrom<Caller['who']>('anonymous', 'anonymous', 'admin', 'user'),
    transport: fc.constantFrom<Caller['transport']>('session', 'bearer'),
  });
  return fc
    .record({ path, query: queryPairs(op, known), body: bodies(op), caller, forged: forgedHeaders })
    .map(({ path: values, query, body, caller: who, forged }) => ({
      method: op.method,
      url: urlOf(op, values, query),
      headers: body.headers,
      body: body.body,
      caller: who,
      forged,
      kind: body.kind,
    }));
}
