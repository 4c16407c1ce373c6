// The Koa harness of the shared suites: the user's own Koa app with routes mounted by
// @crudsmith/koa, listening on 127.0.0.1. Used by the adapter and CRUD conformance suites.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import type { Mountable } from '@crudsmith/core/adapter';
import { createSession } from 'koa-session';
import { koaSessionOptions, mountRoutes, type KoaAdapterOptions } from '@crudsmith/koa';
import type { AdapterHarness, MountedServer } from './conformance';

/** Starts `app` on a port the system picks. */
export function listen(app: Koa): Promise<MountedServer> {
  return new Promise((resolve) => {
    const server: Server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/** A Koa app with `routes` mounted (after koa-session for each of `options.sessions`), that also answers `GET /own` itself. */
export function appWith(routes: Mountable, options: KoaAdapterOptions): Koa {
  const app = new Koa();
  for (const manager of options.sessions ?? []) app.use(createSession(koaSessionOptions(manager), app));
  mountRoutes(app, routes, options);
  app.use(async (ctx, next) => {
    if (ctx.path !== '/own') return next();
    ctx.body = 'own';
  });
  return app;
}

/** The harness every shared suite runs on Koa. */
export const koaHarness: AdapterHarness = { name: 'koa', mount: (routes, options) => listen(appWith(routes, options)) };
