import { CRUD_KEY, defineMetadata, SOFT_DELETE_KEY, type SoftDeleteDeclaration } from '../model/declarations';
import type { CrudDeclaration } from './metadata';

/** Declares a model's CRUD endpoints (function twin of `@Crud`). */
export function crud(model: Function, options: CrudDeclaration = {}): void {
  defineMetadata(CRUD_KEY, { ...options }, model);
}

/** Declares a model's CRUD endpoints; the registry builds them at startup. */
export function Crud(options: CrudDeclaration = {}): ClassDecorator {
  return (target) => crud(target, options);
}

/** Names a model's soft-delete columns (function twin of `@SoftDelete`). */
export function softDelete(model: Function, options: SoftDeleteDeclaration = {}): void {
  defineMetadata(SOFT_DELETE_KEY, { isDeletedColumn: 'is_deleted', deletedAtColumn: 'deleted_at', ...options }, model);
}

/** Names a model's soft-delete columns (default `is_deleted` and `deleted_at`). */
export function SoftDelete(options: SoftDeleteDeclaration = {}): ClassDecorator {
  return (target) => softDelete(target, options);
}
