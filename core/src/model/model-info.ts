import type { Model, Relation } from 'objection';
import { ConfigurationError } from '../errors/configuration-error';

/** An objection model class. */
export type ModelClass = typeof Model;

/** How a column's values are read from a query string, compared and serialized. */
export type ColumnKind = 'integer' | 'number' | 'string' | 'boolean' | 'datetime' | 'date' | 'json';

/** What crudsmith knows of one column. */
export interface ColumnInfo {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  /**
   * The step a stored number keeps (JSON Schema's `multipleOf`): `0.01` for a
   * `decimal(10, 2)` column. A write with finer digits is a 422 rather than a value the
   * engine rounds (PostgreSQL, MariaDB) or keeps (SQLite).
   */
  multipleOf?: number;
}

/** What crudsmith knows of one model: its table, key, columns and relations. */
export interface ModelInfo {
  model: ModelClass;
  table: string;
  /** The primary key's column; for a composite key, its first column (`idColumns` holds them all). */
  idColumn: string;
  /** Every column of the primary key, in the model's order: one, or several for a composite key. */
  idColumns: readonly string[];
  columns: Map<string, ColumnInfo>;
  relations: Record<string, Relation>;
}

const cache = new WeakMap<ModelClass, ModelInfo>();

/**
 * Reads a model's columns from its objection `jsonSchema` (never from `design:type`,
 * which esbuild does not emit). Cached per class, own entry only, so a subclass with
 * its own schema is read afresh.
 */
export function modelInfo(model: ModelClass): ModelInfo {
  const cached = cache.get(model);
  if (cached) return cached;
  const schema = model.jsonSchema as { properties?: Record<string, any> } | undefined;
  if (!schema?.properties) {
    throw new ConfigurationError(
      `Model ${model.name} declares no jsonSchema.properties; crudsmith reads its columns from there`,
    );
  }
  const idColumns: string[] = typeof model.idColumn === 'string' ? [model.idColumn] : [...(model.idColumn as string[])];
  if (idColumns.length === 0 || new Set(idColumns).size !== idColumns.length) {
    throw new ConfigurationError(`Model ${model.name} names no primary key column, or one twice, in idColumn`);
  }
  const columns = new Map<string, ColumnInfo>();
  for (const [name, property] of Object.entries(schema.properties)) columns.set(name, columnFromSchema(name, property));
  for (const column of idColumns) {
    if (!columns.has(column)) {
      if (idColumns.length > 1)
        throw new ConfigurationError(`Model ${model.name}: key column '${column}' is not in jsonSchema.properties`);
      columns.set(column, { name: column, kind: 'integer', nullable: false });
    }
  }
  const info: ModelInfo = {
    model,
    table: model.tableName,
    idColumn: idColumns[0],
    idColumns,
    columns,
    relations: model.getRelations(),
  };
  cache.set(model, info);
  return info;
}

function columnFromSchema(name: string, property: any): ColumnInfo {
  const types: string[] = Array.isArray(property.type) ? property.type : [property.type ?? 'string'];
  const nullable = types.includes('null');
  const type = types.find((t) => t !== 'null') ?? 'string';
  let kind: ColumnKind;
  if (type === 'integer') kind = 'integer';
  else if (type === 'number') kind = 'number';
  else if (type === 'boolean') kind = 'boolean';
  else if (type === 'object' || type === 'array') kind = 'json';
  else if (property.format === 'date-time') kind = 'datetime';
  else if (property.format === 'date') kind = 'date';
  else kind = 'string';
  const column: ColumnInfo = {
    name,
    kind,
    nullable,
    maxLength: property.maxLength,
    minimum: property.minimum,
    maximum: property.maximum,
  };
  if ((kind === 'number' || kind === 'integer') && property.multipleOf !== undefined) {
    if (!(typeof property.multipleOf === 'number' && property.multipleOf > 0 && Number.isFinite(property.multipleOf))) {
      throw new ConfigurationError(`Column '${name}': multipleOf must be a positive number`);
    }
    column.multipleOf = property.multipleOf;
  }
  return column;
}
