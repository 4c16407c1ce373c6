import { plainToInstance } from 'class-transformer';
import type { SchemaClass } from './fields';
import { transformerMetadataMaps } from './transformer-storage';

// `plainToInstance` walks every key of a body through class-transformer's metadata (type,
// transform, expose and exclude look-ups on the class and each ancestor) even when the
// schema declares none of it, which is most schemas. For such a schema and a flat body
// (no object or array values), what it makes is simply: a new instance, then each key of
// the body assigned, bar `__proto__`, `constructor`, methods and read-only accessors. That
// is what `toInstance` does then; anything else goes to `plainToInstance` itself.
//
// Whether a class declares class-transformer metadata is only kept in class-transformer's
// own storage (`transformer-storage.ts`); when it cannot be trusted, every call goes to
// `plainToInstance`.

const plainClasses = new WeakMap<Function, boolean>();

/** `plainToInstance(schema, body)`, made directly when the schema and the body need nothing of class-transformer. */
export function toInstance(schema: SchemaClass, body: Record<string, unknown>): Record<string, unknown> {
  if (!makesDirectly(schema, body)) return plainToInstance(schema, body) as Record<string, unknown>;
  const instance = new schema() as Record<string, unknown>;
  const prototype = instance.constructor?.prototype;
  for (const key of Object.keys(body)) {
    if (key === '__proto__' || key === 'constructor') continue;
    // class-transformer keeps a method, and an accessor it could not set, as the class has it.
    if (prototype) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
      if ((descriptor && !descriptor.set) || instance[key] instanceof Function) continue;
    }
    instance[key] = body[key];
  }
  return instance;
}

/** Whether `toInstance` makes this instance itself rather than through `plainToInstance`. */
export function makesDirectly(schema: SchemaClass, body: Record<string, unknown>): boolean {
  return isFlat(body) && declaresNothing(schema);
}

function isFlat(body: Record<string, unknown>): boolean {
  for (const key in body) {
    const value = body[key];
    if (value !== null && typeof value === 'object') return false;
  }
  return true;
}

/** Whether class-transformer holds no metadata for the class or any of its ancestors. */
function declaresNothing(schema: Function): boolean {
  let known = plainClasses.get(schema);
  if (known === undefined) {
    const maps = transformerMetadataMaps();
    known = maps !== null && lineage(schema).every((target) => maps.every((map) => !map.has(target)));
    plainClasses.set(schema, known);
  }
  return known;
}

/** The class and its ancestors, as class-transformer walks them. */
function lineage(schema: Function): Function[] {
  const classes = [schema];
  for (
    let base = Object.getPrototypeOf(schema.prototype.constructor);
    typeof base?.prototype !== 'undefined';
    base = Object.getPrototypeOf(base.prototype.constructor)
  ) {
    classes.push(base);
  }
  return classes;
}
