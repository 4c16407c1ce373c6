import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { type App } from '@crudsmith/core';
import { createRequest } from '@crudsmith/core/adapter';
import { mountRoutes } from '@crudsmith/koa';
import { prng } from './items';
import type { Operation } from './measure';

// What the plugin suites (rate-limit, versioning) share: serving a bootstrapped app on Koa,
// and reading random items from it, in process or over HTTP, the same ids in the same
// order on each side of a comparison.

/** Serves a bootstrapped app (its routes and fallbacks) on Koa, on a port the system picks. */
export async function listen(app: App): Promise<{ url: string; server: Server }> {
  const koa = new Koa();
  mountRoutes(koa, app.routes, { fallbacks: app.fallbacks });
  const server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Calls the app's `GET {prefix}/:id` route directly with a neutral request, as an adapter would. */
export function handlerReader(app: App, prefix: string, ids: number[]): Operation {
  const route = app.routes.find((r) => r.method === 'GET' && r.path === `${prefix}/:id`)!;
  const random = prng(11);
  return async () => {
    const id = String(ids[Math.floor(random() * ids.length)]);
    const req = createRequest({
      method: 'GET',
      path: `${prefix}/${id}`,
      params: { id },
      query: {},
      headers: {},
      body: undefined,
      clientAddress: '127.0.0.1',
    });
    const result = await route.handler(req);
    if (result.status !== 200) throw new Error(`GET item answered ${result.status}`);
    return result.json;
  };
}

/** Reads a random item of `ids` over HTTP at `{base}{prefix}/:id`. */
export function httpReader(base: string, prefix: string, ids: number[]): Operation {
  const random = prng(11);
  return async () => {
    const res = await fetch(`${base}${prefix}/${ids[Math.floor(random() * ids.length)]}`);
    if (res.status !== 200) throw new Error(`GET item answered ${res.status}`);
    return res.json();
  };
}
