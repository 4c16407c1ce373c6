/** @deprecated `@crudsmith/core/session` is the old name of `@crudsmith/core/auth`, kept for existing apps: import from `@crudsmith/core/auth`. */
export * from './auth';
