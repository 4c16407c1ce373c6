// The Express harness of the shared suites: the user's own Express app with routes mounted
// by @crudsmith/express, listening on 127.0.0.1. Used by the adapter and CRUD conformance suites.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Express } from 'express';
import type { Mountable } from '@crudsmith/core/adapter';
import { mountRoutes, type ExpressAdapterOptions } from '@crudsmith/express';
import type { AdapterHarness, MountedServer } from './conformance';

/** Starts `app` on a port the system picks. */
export function listen(app: Express): Promise<MountedServer> {
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(0, '127.0.0.1', (error?: Error) => {
      if (error) return reject(error);
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/** An Express app with `routes` mounted, that also answers `GET /own` itself. */
export function appWith(routes: Mountable, options: ExpressAdapterOptions): Express {
  const app = express();
  mountRoutes(app, routes, options);
  app.get('/own', (_req, res) => {
    res.send('own');
  });
  return app;
}

/** The harness every shared suite runs on Express. */
export const expressHarness: AdapterHarness = {
  name: 'express',
  mount: (routes, options) => listen(appWith(routes, options)),
};
