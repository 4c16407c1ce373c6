// @crudsmith/client/generate: the generator behind `crudsmith-client generate`.
export { generateModule } from './module';
export type { OpenApiDocument } from './module';
export { loadDocuments } from './load';
export type { Documents } from './load';
export { runCli } from './cli';
