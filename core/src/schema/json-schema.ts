import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { ColumnInfo, ModelInfo } from '../model/model-info';
import type { SchemaLike } from './fields';
import { transformerStorage } from './transformer-storage';

/** A JSON Schema object (draft 2020-12, as OpenAPI 3.1 uses). */
export type JsonSchema = Record<string, any>;

/**
 * The JSON schema of a class-validator class (through class-validator-jsonschema), or
 * of a field list typed from the model's columns. Excluded fields stay out of it.
 */
export function schemaToJsonSchema(
  schema: SchemaLike,
  ctx: { info?: ModelInfo; exclude?: readonly string[] } = {},
): JsonSchema {
  let json: JsonSchema;
  if (Array.isArray(schema)) {
    const properties: JsonSchema = {};
    for (const field of schema) {
      const column = ctx.info?.columns.get(field);
      properties[field] = column ? columnJsonSchema(column) : {};
    }
    json = { type: 'object', properties };
  } else {
    json = structuredClone(
      targetConstructorToSchema(schema as Function, {
        // Nested classes are described from class-transformer's storage.
        classTransformerMetadataStorage: transformerStorage() as never,
      }) as JsonSchema,
    );
    fixDateStrings(json);
    allowNullWhenOptional(json);
    if (ctx.info) stateSteps(json, ctx.info);
  }
  for (const field of ctx.exclude ?? []) {
    delete json.properties?.[field];
    if (Array.isArray(json.required)) json.required = json.required.filter((r: string) => r !== field);
  }
  if (Array.isArray(json.required) && json.required.length === 0) delete json.required;
  return json;
}

// class-validator-jsonschema renders @IsDateString with a pattern that rejects valid
// ISO dates; a plain date-time format says what we mean.
function fixDateStrings(json: JsonSchema): void {
  for (const property of Object.values<JsonSchema>(json.properties ?? {})) {
    if (
      property.format === 'date-time' ||
      (property.type === 'string' && typeof property.pattern === 'string' && property.pattern.includes('\\d{4}'))
    ) {
      delete property.pattern;
      property.format = 'date-time';
    }
  }
}

// A number column's step (`multipleOf`, the scale of a decimal) is enforced on every write,
// whatever the body class says: publish it on the body's property too.
function stateSteps(json: JsonSchema, info: ModelInfo): void {
  for (const [name, property] of Object.entries<JsonSchema>(json.properties ?? {})) {
    const step = info.columns.get(name)?.multipleOf;
    if (step !== undefined && property.multipleOf === undefined) property.multipleOf = step;
  }
}

// class-validator-jsonschema leaves @IsOptional properties out of `required`, but
// @IsOptional also lets null through (and reads answer null for an empty column): say so,
// or the documents would reject what the API accepts and sends.
function allowNullWhenOptional(json: JsonSchema): void {
  const required = new Set<string>(Array.isArray(json.required) ? json.required : []);
  for (const [name, property] of Object.entries<JsonSchema>(json.properties ?? {})) {
    if (required.has(name)) continue;
    if (typeof property.type === 'string') property.type = [property.type, 'null'];
    else if (Array.isArray(property.type)) {
      if (!property.type.includes('null')) property.type.push('null');
    } else json.properties[name] = { anyOf: [property, { type: 'null' }] };
  }
}

/** The JSON schema of a column's serialized value. */
export function columnJsonSchema(column: ColumnInfo): JsonSchema {
  const base: JsonSchema =
    column.kind === 'integer'
      ? { type: 'integer' }
      : column.kind === 'number'
        ? { type: 'number' }
        : column.kind === 'boolean'
          ? { type: 'boolean' }
          : column.kind === 'datetime'
            ? { type: 'string', format: 'date-time' }
            : column.kind === 'date'
              ? { type: 'string', format: 'date' }
              : column.kind === 'json'
                ? {}
                : { type: 'string' };
  if (column.multipleOf !== undefined) base.multipleOf = column.multipleOf;
  if (column.nullable && base.type) return { ...base, type: [base.type, 'null'] };
  return base;
}

/** The schema of a row as the endpoints answer it: the select schema's fields, or every column. */
export function rowJsonSchema(info: ModelInfo, select?: SchemaLike): JsonSchema {
  if (select && !Array.isArray(select)) return schemaToJsonSchema(select, { info });
  const fields = (select as string[] | undefined) ?? [...info.columns.keys()];
  return schemaToJsonSchema(fields, { info });
}
