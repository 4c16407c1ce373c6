// The Fastify harness of the shared suites: the user's own Fastify instance (default router
// options) with routes mounted by @crudsmith/fastify, listening on 127.0.0.1. Used by the
// adapter and CRUD conformance suites.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Mountable } from '@crudsmith/core/adapter';
import { frameworkErrors, mountRoutes, type FastifyAdapterOptions } from '@crudsmith/fastify';
import type { AdapterHarness, MountedServer } from './conformance';

/** Starts `app` on a port the system picks. */
export async function listen(app: FastifyInstance): Promise<MountedServer> {
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

/**
 * A Fastify app with `routes` mounted, that also answers `GET /own` itself. Its only option
 * is the adapter's `frameworkErrors`, as the README asks: the router options are Fastify's
 * defaults (case-sensitive, trailing slash significant).
 */
export function appWith(routes: Mountable, options: FastifyAdapterOptions): FastifyInstance {
  const app = Fastify({ frameworkErrors });
  mountRoutes(app, routes, options);
  app.get('/own', async () => 'own');
  return app;
}

/** The harness every shared suite runs on Fastify. */
export const fastifyHarness: AdapterHarness = {
  name: 'fastify',
  mount: (routes, options) => listen(appWith(routes, options)),
};
