// @crudsmith/versioning: API versions under one prefix, deprecation headers, discovery,
// and per-version OpenAPI 3.1 documents with a local Swagger UI.

/** The plugin factory, its options and what it returns. */
export { versioning } from './versioning';
export type { VersioningPlugin, ServedVersion } from './versioning';
export type { VersioningOptions, VersionOptions, DeprecationOptions, DocsOptions, SecurityDocs } from './options';

/** The pieces, for apps that build their own: headers, OpenAPI documents. */
export { parseDeprecation, deprecationHeaders } from './deprecation';
export type { Deprecation } from './deprecation';
export { buildOpenApiDocument } from './openapi/document';
export type { OpenApiDocument, VersionDocInput } from './openapi/document';
