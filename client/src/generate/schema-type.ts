// JSON Schema (OpenAPI 3.1's dialect, as crudsmith emits it) to a TypeScript type text.

/** A JSON schema object, loosely typed. */
export type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property name as it may stand in a type literal. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** The type text of `schema`; `$ref`s to components become their names; `indent` is the nesting depth. */
export function schemaType(schema: unknown, indent = 0, optionalAll = false): string {
  if (schema === true || schema === undefined || schema === null || typeof schema !== 'object') return 'unknown';
  const s = schema as Schema;
  if (typeof s.$ref === 'string') return s.$ref.split('/').at(-1)!;
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  if (Array.isArray(union)) return [...new Set(union.map((part) => schemaType(part, indent)))].join(' | ');
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (!types.length) return s.properties ? objectType(s, indent, optionalAll) : 'unknown';
  return types
    .map((type) => {
      switch (type) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array': {
          const item = schemaType(s.items, indent);
          return item.includes(' ') ? `(${item})[]` : `${item}[]`;
        }
        case 'object':
          return objectType(s, indent, optionalAll);
        default:
          return 'unknown';
      }
    })
    .join(' | ');
}

/** An object schema as a type literal; every property optional when `optionalAll`. */
export function objectType(s: Schema, indent: number, optionalAll = false): string {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const required = new Set((s.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (!names.length) return s.additionalProperties === false ? 'Record<string, never>' : 'Record<string, unknown>';
  const pad = '  '.repeat(indent + 1);
  const lines = names.map((name) => {
    const optional = optionalAll || !required.has(name) ? '?' : '';
    return `${pad}${propertyKey(name)}${optional}: ${schemaType(properties[name], indent + 1)};`;
  });
  return `{\n${lines.join('\n')}\n${'  '.repeat(indent)}}`;
}

/** A `multipart/form-data` schema as the parts object the runtime sends as `FormData`: files (`format: binary`) as `Blob`. */
export function formType(s: Schema, indent: number): string {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (!names.length) return 'Record<string, string | Blob>';
  const pad = '  '.repeat(indent + 1);
  const part = (schema: Schema | undefined) =>
    schema?.format === 'binary' || schema?.contentMediaType !== undefined ? 'Blob' : schemaType(schema, indent + 1);
  const lines = names.map((name) => {
    const schema = properties[name];
    const item = schema.type === 'array' ? part(schema.items as Schema | undefined) : undefined;
    const type = item === undefined ? part(schema) : item.includes(' ') ? `(${item})[]` : `${item}[]`;
    return `${pad}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${type};`;
  });
  return `{\n${lines.join('\n')}\n${'  '.repeat(indent)}}`;
}
