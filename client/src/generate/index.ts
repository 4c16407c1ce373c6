// @crudsmith/client/generate: the generator behind `crudsmith-client generate`.
export { generateModule } from './module';
export type { OpenApiDocument } from './module';
export { runCli } from './cli';
