import { getMetadataStorage } from 'class-validator';

/** A class-validator schema class. */
export type SchemaClass = new (...args: any[]) => object;

/** A schema: a class-validator class, or simply the list of its field names. */
export type SchemaLike = SchemaClass | readonly string[];

const cache = new WeakMap<object, string[]>();

/** The field names a schema declares (every decorated property, inherited ones included). */
export function schemaFields(schema: SchemaLike): string[] {
  if (Array.isArray(schema)) return [...schema];
  const cls = schema as SchemaClass;
  let fields = cache.get(cls);
  if (!fields) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
    fields = [...new Set(metadata.map((m) => m.propertyName))];
    cache.set(cls, fields);
  }
  return fields;
}
