import { policyOf } from '../access/effective';
import { resolveJoins, type ResolvedJoin } from '../data/joins';
import type { ModelInfo } from '../model/model-info';
import { rowJsonSchema, type JsonSchema } from '../schema/json-schema';
import type { CrudContext } from './crud-context';

// The JSON schema of a row as the generated routes answer it: the model's answered
// columns, the related rows its joins attach, and its `<relation>_count` integers. The
// typed client takes its types from here, so it follows what `attachJoins` writes.

/** Each `<relation>_count` the rows carry, beside their columns. */
export function withCounts(row: JsonSchema, relations: string[] | undefined): JsonSchema {
  if (!relations) return row;
  const counts = Object.fromEntries(relations.map((name) => [`${name}_count`, { type: 'integer', minimum: 0 }]));
  return { ...row, properties: { ...row.properties, ...counts }, ...present(row, Object.keys(counts)) };
}

/** The row the routes answer: answered columns, joined rows and relationship counts. */
export function answerSchema(ctx: CrudContext): JsonSchema {
  const row = rowJsonSchema(ctx.info, ctx.selectSchema);
  const joined = ctx.joins ? withJoins(row, resolveJoins(ctx.info, ctx.joins), ctx.nestJoins) : row;
  return withCounts(joined, ctx.relationshipCounts);
}

/** Whether a create answers the row without being asked to: with a select schema, joins or counts. */
export const createAnswersRow = (ctx: CrudContext): boolean =>
  Boolean(ctx.selectSchema || ctx.joins || ctx.relationshipCounts);

/**
 * The related rows of each join: under its key, a list (one-to-many, many-to-many) or an
 * object or null (one-to-one, many-to-one); without nesting, a one-to-one join's columns
 * sit beside the row's as `<prefix><column>`, each null when there is no related row.
 */
function withJoins(row: JsonSchema, joins: ResolvedJoin[], nest: boolean): JsonSchema {
  const properties: JsonSchema = { ...row.properties };
  const keys: string[] = [];
  for (const join of joins) {
    const item = relatedRow(join);
    if (join.many || nest) keys.push(join.key);
    if (join.many) properties[join.key] = { type: 'array', items: item };
    else if (nest) properties[join.key] = { oneOf: [item, { type: 'null' }] };
    // A flattened column stays optional: a related field hidden from the caller leaves its row.
    else
      for (const [column, schema] of Object.entries<JsonSchema>(item.properties ?? {}))
        properties[`${join.prefix}${column}`] = orNull(schema);
  }
  return { ...row, properties, ...present(row, keys) };
}

// Every answered row carries its joins' keys (an empty list, or null) and its counts.
function present(row: JsonSchema, keys: string[]): { required?: string[] } {
  const required = [...new Set([...(Array.isArray(row.required) ? row.required : []), ...keys])];
  return required.length > 0 ? { required } : {};
}

/** A related row: the join's `schemaToSelect` or every column, less the fields its model's read rule hides from all. */
function relatedRow(join: ResolvedJoin): JsonSchema {
  const { info } = join.link;
  const schema = structuredClone(rowJsonSchema(info, join.config.schemaToSelect));
  for (const field of alwaysHidden(info)) {
    delete schema.properties?.[field];
    if (Array.isArray(schema.required)) schema.required = schema.required.filter((name: string) => name !== field);
  }
  return schema;
}

// A read rule's fixed field set leaves its other fields out of every related row (a
// superuser's aside, which a document need not promise); a field set chosen per caller,
// or a field shown on some rows only, stays documented, as optional as every property.
function alwaysHidden(info: ModelInfo): string[] {
  const fields = policyOf(info.model)?.read?.fields;
  if (!fields || typeof fields === 'function') return [];
  if ('except' in fields) return [...fields.except];
  const allowed = new Set(fields);
  return [...info.columns.keys()].filter((column) => !allowed.has(column));
}

function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type))
    return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  // A JSON column (no type) already takes null.
  return Object.keys(schema).length === 0 ? schema : { anyOf: [schema, { type: 'null' }] };
}
