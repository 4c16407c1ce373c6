import type { RouteDoc } from '../http/route';
import { columnJsonSchema, schemaToJsonSchema, type JsonSchema } from '../schema/json-schema';
import { answerSchema, createAnswersRow } from './answer-schema';
import { ERROR_SCHEMA, VALIDATION_ERROR_SCHEMA } from '../schema/error-schemas';
import type { CrudContext } from './crud-context';
import type { OperationKey } from './options';
import { keyParams } from './path-key';
import { UPDATE_TYPES } from './media-type';
import { EXPORT_FORMATS } from './export-format';

// OpenAPI information of each generated route, published later by the docs plugin.

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (JSON body, path encoding, or query)',
  412: 'The item changed since the ETag given in If-Match; nothing was written',
  413: 'Request body too large',
  409: 'Conflict: a duplicate value, or the same Idempotency-Key still in progress',
  415: 'Unsupported Content-Type or Content-Encoding',
  422: 'Validation error',
  428: 'If-Match is required',
};

// The adapters read a JSON, form or multipart body sent with any method before the route
// runs, so every operation can answer the body's 400 (malformed), 413 (over the limit) and
// 415 (unknown Content-Encoding); a path parameter that is not valid percent-encoding is
// a 400 too.
const BODY_ERRORS = [400, 413, 415];

/** The error answers of a route: the body's own and `codes`. */
export const errors = (...codes: number[]) =>
  Object.fromEntries(
    [...new Set([...BODY_ERRORS, ...codes])]
      .sort()
      .map((code) => [
        String(code),
        { description: DESCRIPTIONS[code] ?? 'Error', schema: code === 422 ? VALIDATION_ERROR_SCHEMA : ERROR_SCHEMA },
      ]),
  );

/** One path parameter per key column: `id`, or each column of a composite key by name. */
export function idParameters(ctx: CrudContext): Record<string, unknown>[] {
  const names = keyParams(ctx.info);
  return ctx.info.idColumns.map((column, i) => ({
    name: names[i],
    in: 'path',
    required: true,
    schema: columnJsonSchema({ ...ctx.info.columns.get(column)!, nullable: false }),
  }));
}

function query(name: string, schema: JsonSchema, description?: string): Record<string, unknown> {
  return { name, in: 'query', required: false, schema, ...(description ? { description } : {}) };
}

function listParameters(ctx: CrudContext): Record<string, unknown>[] {
  const int = (min: number, max?: number) => ({ type: 'integer', minimum: min, ...(max ? { maximum: max } : {}) });
  const params = [
    query('offset', int(0)),
    query('limit', int(1, ctx.limits.maxLimit)),
    query('page', int(1)),
    query('itemsPerPage', int(1, ctx.limits.maxLimit)),
    // The typed-client generator reads the sortable columns from the extension, not from the prose.
    {
      ...query(
        'sort',
        { type: 'string' },
        `Comma-separated columns among ${[...ctx.sortable].join(', ')}; a leading - sorts descending`,
      ),
      'x-crudsmith-sort': [...ctx.sortable],
    },
    query('cursor', { type: 'string' }, 'Keyset pagination: empty for the first page, then next_cursor'),
  ];
  for (const filter of ctx.filters) {
    if (filter.dependency) continue;
    // A filter compares with any number: the column's step binds what is written, not what is asked.
    const item = columnJsonSchema({ ...filter.column, nullable: false, multipleOf: undefined });
    const list = ['in', 'not_in', 'between'].includes(filter.op);
    params.push({
      ...query(filter.key, list ? { type: 'array', items: item } : item),
      ...(list ? { style: 'form', explode: false } : {}),
      'x-crudsmith-filter': { field: filter.field, op: filter.op },
    });
  }
  return params;
}

// An export answers every row: the list's window keys are no parameters of it.
const WINDOW_KEYS = new Set(['offset', 'limit', 'page', 'itemsPerPage', 'cursor']);

// A read answers its tag and a 304 when the client's `If-None-Match` lists it.
const ETAG = {
  ETag: { description: "The answer's entity tag: strong for one row, weak for a list", schema: { type: 'string' } },
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: "Tags the client holds: 304 without a body when the answer's tag is among them",
};
const NOT_MODIFIED = {
  '304': { description: 'Not modified: the tag given in If-None-Match is current', headers: ETAG },
};

// The writes of one row take `If-Match`: 412 when stale, 428 without it where required.
const ifMatch = (ctx: CrudContext) => ({
  name: 'If-Match',
  in: 'header',
  required: ctx.requireIfMatch,
  schema: { type: 'string' },
  description: 'The ETag the client read: the write happens only while the row still has it',
});
const preconditions = (ctx: CrudContext) => (ctx.requireIfMatch ? [412, 428] : [412]);

// Every write takes `Prefer: return=representation|minimal` and says which it honoured.
const PREFER = {
  name: 'Prefer',
  in: 'header',
  required: false,
  schema: { type: 'string', enum: ['return=representation', 'return=minimal'] },
  description: 'return=representation answers the written row, return=minimal answers 204 without a body',
};
const APPLIED = {
  'Preference-Applied': { description: 'The Prefer preference honoured', schema: { type: 'string' } },
};
const MINIMAL = { '204': { description: 'Written (Prefer: return=minimal)', headers: APPLIED } };

/** The answer of a write: its usual schema, or the row when the client prefers it. */
const written = (description: string, usual: JsonSchema, item: JsonSchema) => ({
  description: `${description}; the row with Prefer: return=representation`,
  // anyOf: with a select schema the usual answer is the row itself, which matches both;
  // with joins an update's usual answer is the row or null, which holds the row already.
  schema: usual === item || usual.oneOf?.includes(item) ? usual : { anyOf: [usual, item] },
  headers: APPLIED,
});

// A create with idempotency takes the key, and answers 409 (still running) and 422 (another body).
const idempotencyParameters = (ctx: CrudContext) =>
  ctx.idempotency
    ? [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string', minLength: 1, maxLength: 255 },
          description:
            'A repeat with the same key and body answers the first answer again and writes nothing; ' +
            'with another body it is a 422, while the first still runs a 409',
        },
      ]
    : [];

/** The OpenAPI description of one generated operation. */
export function routeDoc(ctx: CrudContext, op: OperationKey, base: { name: string; tags: string[] }): RouteDoc {
  const operationId = `${base.name}_${op.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
  const item = answerSchema(ctx);
  const nullable = { oneOf: [item, { type: 'null' }] };
  const doc: RouteDoc = {
    operationId,
    tags: base.tags,
    summary: `${op} ${base.name}`,
    // Which generated operation of which resource this is, for the typed-client generator.
    extensions: { 'x-crudsmith-crud': { resource: base.name, operation: op } },
  };
  switch (op) {
    case 'create':
      doc.parameters = [PREFER, ...idempotencyParameters(ctx)];
      doc.requestBody = schemaToJsonSchema(ctx.createSchema!, { info: ctx.info, exclude: ctx.createConfig.forbidden });
      doc.responses = {
        '201': written('Created', createAnswersRow(ctx) ? item : { type: ['object', 'null'] }, item),
        ...MINIMAL,
        ...errors(409, 422),
      };
      break;
    case 'read':
      doc.parameters = [...idParameters(ctx), IF_NONE_MATCH];
      doc.responses = {
        '200': { description: 'The item', schema: item, headers: ETAG },
        ...NOT_MODIFIED,
        ...errors(404, 422),
      };
      break;
    case 'readMulti':
      doc.parameters = [...listParameters(ctx), IF_NONE_MATCH];
      doc.responses = {
        ...NOT_MODIFIED,
        '200': {
          description: 'A list envelope, a page envelope with has_more, or a keyset page with next_cursor',
          headers: ETAG,
          schema: {
            oneOf: [
              {
                type: 'object',
                required: ['data', 'total_count'],
                properties: {
                  data: { type: 'array', items: item },
                  total_count: { type: 'integer' },
                  has_more: { type: 'boolean' },
                  page: { type: 'integer' },
                  items_per_page: { type: 'integer' },
                },
              },
              {
                type: 'object',
                required: ['data', 'next_cursor'],
                properties: { data: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } },
              },
            ],
          },
        },
        ...errors(422),
      };
      break;
    case 'export':
      doc.parameters = [
        query('format', { type: 'string', enum: [...EXPORT_FORMATS], default: 'csv' }),
        ...listParameters(ctx).filter((param) => !WINDOW_KEYS.has(param.name as string)),
      ];
      doc.responses = {
        '200': {
          description: 'Every matching row, streamed as an attachment: CSV (RFC 4180), NDJSON, or a JSON array',
          content: {
            'text/csv': { type: 'string', description: 'A header row, then one record per row' },
            'application/x-ndjson': { type: 'string', description: 'One JSON object per line' },
            'application/json': { type: 'array', items: item },
          },
        },
        ...errors(422),
      };
      break;
    case 'update':
      doc.parameters = [...idParameters(ctx), ifMatch(ctx), PREFER];
      doc.requestBody = schemaToJsonSchema(ctx.updateSchema!, { info: ctx.info, exclude: ctx.updateConfig.forbidden });
      // A JSON merge patch reads as the JSON body does, but merges objects into JSON columns.
      doc.requestBodyContentTypes = [...UPDATE_TYPES];
      doc.responses = {
        '200': written('Updated', ctx.joins ? nullable : { type: 'null' }, item),
        ...MINIMAL,
        ...errors(404, 409, 422, ...preconditions(ctx)),
      };
      break;
    case 'restore':
      doc.parameters = [...idParameters(ctx), ifMatch(ctx), PREFER];
      doc.responses = {
        '200': { description: 'The restored item', schema: item, headers: APPLIED },
        ...MINIMAL,
        ...errors(404, 409, 422, ...preconditions(ctx)),
      };
      break;
    default:
      doc.parameters = [...idParameters(ctx), ifMatch(ctx), PREFER];
      doc.responses = {
        '200': written('Deleted', ctx.joins ? nullable : { type: 'null' }, item),
        ...MINIMAL,
        ...errors(404, 422, ...preconditions(ctx)),
      };
  }
  return doc;
}
