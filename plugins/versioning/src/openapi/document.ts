import { ConfigurationError, type RouteDescriptor, type RouteDoc } from '@crudsmith/core';
import type { DocsOptions } from '../options';
import { ERROR_COMPONENTS, errorResponse } from './error-schemas';

/** An OpenAPI 3.1 document, as plain JSON. */
export type OpenApiDocument = Record<string, any>;

/** What one version's document is built from. */
export interface VersionDocInput {
  label: string;
  /** The version's routes, their paths already under the version's prefix. */
  routes: readonly RouteDescriptor[];
  deprecated?: { message: string; sunsetIso: string };
  docs: DocsOptions;
}

/**
 * The OpenAPI 3.1 document of one version, from its routes' `doc` and those of the
 * unversioned routes `docs.unversioned` names: one operation per route
 * (operationIds unique, or startup fails), path parameters declared, request bodies and
 * response schemas as the routes describe them, security where the route needs a login,
 * and the error responses with their body schemas.
 */
export function buildOpenApiDocument(input: VersionDocInput): OpenApiDocument {
  const { docs } = input;
  const paths: Record<string, Record<string, unknown>> = {};
  const securitySchemes: Record<string, Record<string, unknown>> = {};
  const operationIds = new Map<string, string>();
  const tags = new Set<string>();

  // The version's own routes, then the unversioned ones its clients call too (never deprecated).
  const documented = [
    ...input.routes.map((route) => ({ route, versioned: true })),
    ...(docs.unversioned ?? []).map((route) => ({ route, versioned: false })),
  ];
  for (const { route, versioned } of documented) {
    if (route.includeInSchema === false) continue;
    const doc: RouteDoc = route.doc ?? { operationId: route.operation };
    const where = `${route.method} ${route.path}`;
    const clash = operationIds.get(doc.operationId);
    if (clash)
      throw new ConfigurationError(`${input.label}: operationId ${doc.operationId} is used by ${clash} and ${where}`);
    operationIds.set(doc.operationId, where);
    for (const tag of doc.tags ?? []) tags.add(tag);

    const security = doc.security ?? loginRequirement(route, docs);
    Object.assign(securitySchemes, doc.securitySchemes ?? {}, security && !doc.security ? docs.security!.schemes : {});
    const operation: Record<string, unknown> = {
      operationId: doc.operationId,
      ...(doc.summary ? { summary: doc.summary } : {}),
      ...(doc.tags?.length ? { tags: doc.tags } : {}),
      ...(input.deprecated && versioned ? { deprecated: true } : {}),
      parameters: parameters(route.path, doc),
      ...(doc.requestBody ? { requestBody: requestBody(doc) } : {}),
      responses: responses(route, { doc, secured: Boolean(security?.length), docs }),
      ...(security ? { security } : {}),
      ...doc.extensions,
    };
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: `${docs.title ?? 'API'} ${input.label}`,
      version: input.label,
      ...description(input),
    },
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: ERROR_COMPONENTS,
      ...(Object.keys(securitySchemes).length ? { securitySchemes } : {}),
    },
  };
}

function loginRequirement(route: RouteDescriptor, docs: DocsOptions): Record<string, string[]>[] | undefined {
  const security = docs.security;
  if (!security || !route.dependencies.some((dependency) => security.dependencies.includes(dependency)))
    return undefined;
  return typeof security.requirement === 'function' ? security.requirement(route) : security.requirement;
}

function description(input: VersionDocInput): { description?: string } {
  const parts = [
    input.docs.description,
    input.deprecated && `Deprecated: ${input.deprecated.message} Sunset: ${input.deprecated.sunsetIso}.`,
  ];
  const text = parts.filter(Boolean).join('\n\n');
  return text ? { description: text } : {};
}

// Every `{name}` of the path must be declared (OpenAPI), so undeclared ones are added as strings.
function parameters(path: string, doc: RouteDoc): Record<string, unknown>[] {
  const declared = [...(doc.parameters ?? [])];
  for (const [, name] of path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    if (!declared.some((p) => p.in === 'path' && p.name === name))
      declared.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  return declared;
}

function requestBody(doc: RouteDoc): Record<string, unknown> {
  const types = doc.requestBodyContentTypes ?? ['application/json'];
  return {
    required: doc.requestBodyRequired !== false,
    content: Object.fromEntries(types.map((type) => [type, { schema: doc.requestBody }])),
  };
}

// The adapters read a body sent with any method before a route runs, and check its path
// encoding, so every operation, hand-written or generated, can answer the request's 400
// (malformed JSON, path or multipart), 413 (over the body limit), 415 (an unknown
// Content-Encoding) and 422 (a NUL or lone surrogate anywhere in the body).
const REQUEST_ERRORS = [400, 413, 415, 422];

function responses(
  route: RouteDescriptor,
  ctx: { doc: RouteDoc; secured: boolean; docs: DocsOptions },
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(ctx.doc.responses ?? {})) {
    result[status] = {
      description: response.description,
      ...(response.headers ? { headers: response.headers } : {}),
      ...(response.schema ? { content: { 'application/json': { schema: response.schema } } } : {}),
    };
  }
  if (Object.keys(result).length === 0) result.default = { description: "The operation's answer" };
  const extra = [...REQUEST_ERRORS, ...(ctx.secured ? [401, 403] : []), ...(ctx.docs.errorResponses?.(route) ?? [])];
  for (const status of extra) result[String(status)] ??= errorResponse(status);
  return result;
}
