import 'reflect-metadata';

// Decorators only record plain arguments on the class with reflect-metadata (own
// metadata, so a subclass never inherits a parent's @Crud by accident); the registry
// reads them when the app compiles its routes, and the data layer reads @SoftDelete.
// What names crud or data types stays with the decorators.

export const CRUD_KEY = 'crudsmith:crud';
export const SOFT_DELETE_KEY = 'crudsmith:soft-delete';
export const FILTERS_KEY = 'crudsmith:filters';
export const ACCESS_KEY = 'crudsmith:access';

/** What `@SoftDelete` records. */
export interface SoftDeleteDeclaration {
  isDeletedColumn?: string;
  deletedAtColumn?: string;
}

/** Reads a class's own metadata, or undefined. */
export function ownMetadata<T>(key: string, target: Function): T | undefined {
  return Reflect.getOwnMetadata(key, target) as T | undefined;
}

/** Records metadata on the class itself. */
export function defineMetadata(key: string, value: unknown, target: Function): void {
  Reflect.defineMetadata(key, value, target);
}

/** The soft-delete flag column a model declares with `@SoftDelete`, if it does. */
export function declaredSoftDeleteFlag(model: Function): string | undefined {
  return ownMetadata<SoftDeleteDeclaration>(SOFT_DELETE_KEY, model)?.isDeletedColumn;
}
