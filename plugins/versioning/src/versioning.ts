import {
  ConfigurationError,
  NotFoundError,
  type Fallback,
  type NeutralRequest,
  type Plugin,
  type PluginHooks,
  type RouteDescriptor,
} from '@crudsmith/core';
import { deprecationHeaders, parseDeprecation, withHeaders, type Deprecation } from './deprecation';
import { docsAssetRoute, docsPageRoutes } from './docs-ui';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
import { otherMethodRoutes } from './other-methods';
import type { VersioningOptions } from './options';

/** One version as the plugin serves it. */
export interface ServedVersion {
  label: string;
  /** Its path, such as `/api/v1`. */
  path: string;
  /** Its routes, paths under `path`. */
  routes: RouteDescriptor[];
  deprecation?: Deprecation;
  /** The headers of every response under `path` (empty for a current version). */
  headers: Record<string, string>;
  /** Its OpenAPI 3.1 document (when docs are enabled). */
  openapi?: OpenApiDocument;
}

/** The plugin value, with what it built (for tests and the app's own use). */
export interface VersioningPlugin extends Plugin {
  versions: ServedVersion[];
  currentVersion: string;
}

const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * API versions under one prefix: each version's routers are served under
 * `{prefix}/{label}`, the prefix applied when the routes are built (so every hook, a rate
 * limiter included, sees the full path). A deprecated version's every answer, errors and
 * 404s included, carries the deprecation headers; `{prefix}/versions` lists the versions;
 * each version publishes its OpenAPI 3.1 document and a Swagger UI page; an unmatched path
 * under the prefix (an unknown version too) is a JSON 404.
 *
 * @example
 * const versions = versioning({
 *   prefix: '/api',
 *   versions: [
 *     { label: 'v1', routers: [itemsV1, usersV1], deprecated: { message: 'Use /api/v2', sunset: '2027-06-30' } },
 *     { label: 'v2', routers: [itemsV2, usersV2] },
 *   ],
 * });
 * const app = bootstrap({ plugins: [versions, limits] });
 */
export function versioning(options: VersioningOptions): VersioningPlugin {
  const prefix = options.prefix.replace(/\/+$/, '');
  if (prefix !== '' && !/^\/[^?#]*$/.test(prefix))
    throw new ConfigurationError(`versioning prefix must start with /, got ${options.prefix}`);
  const docs = options.docs ?? {};
  const docsEnabled = docs.enabled !== false;
  const versions = options.versions.map((version): ServedVersion => {
    if (!LABEL.test(version.label))
      throw new ConfigurationError(`version label ${version.label} is not a path segment`);
    const path = `${prefix}/${version.label}`;
    const deprecation = version.deprecated && parseDeprecation(version.label, version.deprecated);
    const routes = version.routers
      .flatMap((router) => (Array.isArray(router) ? router : router.routes))
      .map((route) => ({
        ...route,
        path: joinPath(path, route.path),
        operation: `${version.label}_${route.operation}`,
      }));
    const served: ServedVersion = {
      label: version.label,
      path,
      routes,
      deprecation,
      headers: deprecation
        ? deprecationHeaders(
            deprecation,
            docsEnabled ? `${(docs.mountPath ?? '').replace(/\/$/, '')}${path}/docs` : undefined,
          )
        : {},
    };
    if (docsEnabled)
      served.openapi = buildOpenApiDocument({ label: version.label, routes, deprecated: deprecation, docs });
    return served;
  });
  const labels = versions.map((v) => v.label);
  if (new Set(labels).size !== labels.length)
    throw new ConfigurationError(`version labels must be unique: ${labels.join(', ')}`);
  const currentVersion = options.current ?? [...versions].reverse().find((v) => !v.deprecation)?.label ?? labels.at(-1);
  if (!currentVersion || !labels.includes(currentVersion))
    throw new ConfigurationError(`current version ${String(currentVersion)} is not one of ${labels.join(', ')}`);

  const routes: RouteDescriptor[] = [discoveryRoute(prefix, versions, currentVersion)];
  if (docsEnabled) routes.push(docsAssetRoute(`${prefix}/docs-assets`));
  for (const version of versions) {
    const own = [...version.routes];
    if (docsEnabled) {
      own.push(openApiRoute(version));
      own.push(
        ...docsPageRoutes({
          label: version.label,
          versionPath: version.path,
          assets: '../docs-assets',
          title: `${docs.title ?? 'API'} ${version.label}`,
        }),
      );
    }
    // A deprecated version's 405s are routes of its own, so they carry its headers too.
    routes.push(...own, ...(version.deprecation ? otherMethodRoutes(version.label, own) : []));
  }
  const deprecated = versions.filter((v) => v.deprecation);
  return {
    name: 'versioning',
    routes,
    hooks: deprecated.length > 0 ? deprecationHooks(deprecated) : undefined,
    fallback: notFoundFallback(prefix, versions),
    versions,
    currentVersion,
  };
}

/** `{prefix}/{label}` + a route's path; a router's `/` root answers `{prefix}/{label}/`. */
function joinPath(versionPath: string, path: string): string {
  return `${versionPath}${path.startsWith('/') ? '' : '/'}${path}`;
}

/** The version a path lies under, segment-wise (`/api/v1` covers `/api/v1/x`, not `/api/v10`). */
function versionOf<V extends { path: string }>(versions: readonly V[], path: string): V | undefined {
  return versions.find((v) => path === v.path || path.startsWith(`${v.path}/`));
}

// Adds the headers to every answer of a deprecated version's routes (errors, 401s and
// 429s included: bootstrap renders them before the after hooks run). Which routes, and
// which version's headers, is decided once per route at bootstrap.
function deprecationHooks(deprecated: ServedVersion[]): PluginHooks {
  const headersOf = new WeakMap<RouteDescriptor, Record<string, string>>();
  return {
    appliesTo(route) {
      const version = versionOf(deprecated, route.path);
      if (version) headersOf.set(route, version.headers);
      return version !== undefined;
    },
    after: (_req, route, result) => ({ ...result, headers: withHeaders(result.headers, headersOf.get(route) ?? {}) }),
  };
}

function discoveryRoute(prefix: string, versions: ServedVersion[], current: string): RouteDescriptor {
  const body = {
    available_versions: versions.map((v) => v.label),
    current_version: current,
    deprecated_versions: versions.filter((v) => v.deprecation).map((v) => v.label),
    sunset_dates: Object.fromEntries(
      versions.flatMap((v) => (v.deprecation ? [[v.label, v.deprecation.sunsetIso]] : [])),
    ),
  };
  return {
    method: 'GET',
    path: `${prefix}/versions`,
    operation: 'versioning_versions',
    dependencies: [],
    handler: async () => ({ status: 200, json: body }),
  };
}

function openApiRoute(version: ServedVersion): RouteDescriptor {
  return {
    method: 'GET',
    path: `${version.path}/openapi.json`,
    operation: `versioning_${version.label}_openapi`,
    dependencies: [],
    handler: async () => ({ status: 200, json: version.openapi }),
  };
}

// Unmatched paths under the prefix: a JSON 404 that names an unknown version, and carries
// the version's headers when the path lies under a deprecated one.
function notFoundFallback(prefix: string, versions: ServedVersion[]): Fallback {
  const available = versions.map((v) => v.label).join(', ');
  return {
    prefix: prefix || '/',
    async handler(req: NeutralRequest) {
      const version = versionOf(versions, req.path.slice(req.path.indexOf(prefix)));
      if (version) return { status: 404, headers: { ...version.headers }, json: { detail: 'Not Found' } };
      const segment = req.path.slice(req.path.indexOf(prefix) + prefix.length).split('/')[1] ?? '';
      if (/^v\d+$/i.test(segment)) throw new NotFoundError(`Unknown API version ${segment}; available: ${available}`);
      throw new NotFoundError('Not Found');
    },
  };
}
