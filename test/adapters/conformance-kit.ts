// What the adapter conformance suite's files share: the harness contract each adapter's
// test file implements, the servers a run starts, and the ways the cases call them.
import { gzipSync } from 'node:zlib';
import { afterAll } from 'vitest';
import type {
  Dependency,
  ErrorLogger,
  Fallback,
  HttpMethod,
  NeutralRequest,
  NeutralResult,
  RouteDescriptor,
} from '@crudsmith/core';
import type { Mountable } from '@crudsmith/core/adapter';
import type { SessionManager } from '@crudsmith/core/auth';

/** The adapter options every adapter understands. */
export interface MountOptions {
  prefix?: string;
  bodyLimit?: number;
  maxBodyValues?: number;
  trustedProxies?: string[];
  logger?: ErrorLogger;
  fallbacks?: Fallback[];
  /** Unmatched paths under the prefix answer the JSON 404 instead of reaching the app. */
  jsonNotFound?: boolean;
  /** Session managers the routes use: the Koa harness carries them with koa-session; the others ignore this. */
  sessions?: SessionManager[];
}

/** A server listening on 127.0.0.1, port chosen by the system. */
export interface MountedServer {
  url: string;
  close(): Promise<void>;
}

/** What an adapter's test file provides. */
export interface AdapterHarness {
  name: string;
  /**
   * Starts the user's app with `routes` (a list, or a bootstrapped app's routes and fallbacks) mounted, where the app itself also answers
   * `GET /own` with the text `own` (registered after the mounted routes).
   */
  mount(routes: Mountable, options: MountOptions): Promise<MountedServer>;
}

/** Builds a route descriptor for a test from `'METHOD /path'`. */
export function route(
  operation: `${HttpMethod} /${string}`,
  handler: (req: NeutralRequest) => NeutralResult | Promise<NeutralResult>,
  dependencies: Dependency[] = [],
): RouteDescriptor {
  const [method, path] = operation.split(' ') as [HttpMethod, string];
  return { method, path, operation, dependencies, handler: async (req) => handler(req) };
}

/** The servers of one run (started in the suite's beforeAll) and the errors they logged. */
export interface SuiteEnv {
  /** Routes under `/api`, with fallbacks under `/api/fb` and `/api/fb/deeper`. */
  base: MountedServer;
  /** A body limit of 1000 bytes, and of 50 values. */
  small: MountedServer;
  /** 127.0.0.1 and 10.0.0.0/8 trusted as proxies. */
  proxied: MountedServer;
  /** Routes under `/api` with `jsonNotFound`, and a fallback under `/api/fb`. */
  strict: MountedServer;
  logged: unknown[];
  /** The adapter under test, for cases that mount their own server. */
  harness: AdapterHarness;
}

// Response.json() is typed unknown; these tests read known shapes.
export const readJson = (res: Response): Promise<any> => res.json();

/** Requests against the run's servers. */
export function clientOf(env: SuiteEnv) {
  return {
    api: (path: string, init?: RequestInit) => fetch(`${env.base.url}/api${path}`, init),
    /** POSTs `body` under /api, as JSON unless `headers` name another type. */
    send: (path: string, body: RequestInit['body'], headers: Record<string, string> = {}) =>
      fetch(`${env.base.url}/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      }),
    postJson: (server: MountedServer, body: string) =>
      fetch(`${server.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
    postJsonGzip: (server: MountedServer, body: string) =>
      fetch(`${server.url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(body),
      }),
  };
}

/** Starts apps with `listen`, and closes every one it started after the enclosing suite. */
export function serverStarter<App>(listen: (app: App) => Promise<MountedServer>): (app: App) => Promise<MountedServer> {
  const servers: MountedServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  return async (app) => {
    const server = await listen(app);
    servers.push(server);
    return server;
  };
}
