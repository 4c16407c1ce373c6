import type { CrudRouter, Dependency, RouteDescriptor } from '@crudsmith/core';

/** A version's deprecation: the message and sunset date its responses announce. */
export interface DeprecationOptions {
  /** Sent as `X-API-Deprecation`; printable ASCII (it is a header value). */
  message: string;
  /** When the version goes away: `YYYY-MM-DD` (midnight UTC), an ISO date-time or a Date. */
  sunset: string | Date;
  /**
   * When it was (or will be) deprecated, for the RFC 9745 `Deprecation` header. Default:
   * the sunset date, so one date is announced everywhere.
   */
  since?: string | Date;
}

/** One API version: its label (the path segment) and what it serves. */
export interface VersionOptions {
  /** The path segment after the prefix, such as `v1`. */
  label: string;
  /** CRUD routers and route lists, their paths relative to the version (`/items`). */
  routers: (CrudRouter | RouteDescriptor[])[];
  deprecated?: DeprecationOptions;
}

/** Security a route needs in the OpenAPI documents, when its own doc says nothing. */
export interface SecurityDocs {
  /** OpenAPI security scheme objects by name (session cookie, CSRF header, bearer). */
  schemes: Record<string, Record<string, unknown>>;
  /** The requirement of a route that needs a login (any one object suffices), or one per route. */
  requirement: Record<string, string[]>[] | ((route: RouteDescriptor) => Record<string, string[]>[]);
  /** A route that lists one of these dependencies needs a login (`auth.currentUser()`). */
  dependencies: readonly Dependency[];
}

/** What the per-version OpenAPI documents and docs pages show. */
export interface DocsOptions {
  /** Serve `/{prefix}/{label}/openapi.json` and `/docs` (default true). */
  enabled?: boolean;
  /**
   * The path the app is reached under from outside, before the versions' own paths: an
   * adapter's `prefix` or a proxy's path, such as `/service`. The deprecation `Link` points
   * there (default: none).
   */
  mountPath?: string;
  /** The documents' `info.title` (default `API`); the label is added. */
  title?: string;
  description?: string;
  security?: SecurityDocs;
  /** Error statuses a route may answer beside its own doc's (429 where a limiter guards it). */
  errorResponses?: (route: RouteDescriptor) => number[];
  /**
   * Routes served outside the versions (an account router at `/auth`) that every version's
   * document lists too, at their own paths and never marked deprecated, so a client of
   * any version finds them (default none).
   */
  unversioned?: readonly RouteDescriptor[];
}

/** Options of `versioning()`. */
export interface VersioningOptions {
  /** Where versions live, such as `/api` (versions at `/api/v1`, discovery at `/api/versions`). */
  prefix: string;
  /** In order, oldest first. */
  versions: VersionOptions[];
  /** The version discovery calls current; default the last one not deprecated. */
  current?: string;
  docs?: DocsOptions;
}
