import { describe, expect, it } from 'vitest';
import knexFactory from 'knex';
import {
  bootstrap,
  createRequest,
  ForbiddenError,
  principalOf,
  runRoute,
  type NeutralRequest,
  type Plugin,
  type RouteDescriptor,
} from '@crudsmith/core';

const request = (path = '/x'): NeutralRequest =>
  createRequest({ method: 'GET', path, query: {}, headers: {}, body: undefined, clientAddress: '127.0.0.1' });

const route = (path: string, handler: RouteDescriptor['handler'], dependencies: RouteDescriptor['dependencies'] = []): RouteDescriptor => ({
  method: 'GET', path, operation: `op${path.replace(/\W/g, '_')}`, dependencies, handler,
});

describe('bootstrap and the plugin contract', () => {
  it('runs before hooks, then dependencies, then the handler, then after hooks', async () => {
    const order: string[] = [];
    const plugin: Plugin = {
      name: 'trace',
      hooks: {
        before: () => void order.push('before'),
        after: (_req, _route, result) => {
          order.push('after');
          return { ...result, headers: { ...result.headers, 'X-Trace': '1' } };
        },
      },
    };
    const app = bootstrap({
      routers: [[route('/x', async () => (order.push('handler'), { status: 200, json: 'ok' }), [() => void order.push('dependency')])]],
      plugins: [plugin],
    });
    const result = await runRoute(app.routes[0], request());
    expect(order).toEqual(['before', 'dependency', 'handler', 'after']);
    expect(result).toEqual({ status: 200, json: 'ok', headers: { 'X-Trace': '1' } });
  });

  it('lets a before hook answer early, skipping dependencies and handler', async () => {
    let ran = false;
    const app = bootstrap({
      routers: [[route('/x', async () => ((ran = true), { status: 200, json: 'ok' }))]],
      plugins: [{ name: 'gate', hooks: { before: () => ({ status: 429, json: { detail: 'slow down' } }) } }],
    });
    expect(await runRoute(app.routes[0], request())).toEqual({ status: 429, json: { detail: 'slow down' } });
    expect(ran).toBe(false);
  });

  it('renders errors before after hooks, so they can decorate error answers too', async () => {
    const seen: unknown[] = [];
    const app = bootstrap({
      routers: [[route('/x', async () => { throw new ForbiddenError('nope'); })]],
      plugins: [{ name: 'headers', hooks: { onError: (_r, _x, e) => void seen.push(e), after: (_r, _x, result) => ({ ...result, headers: { Sunset: 'soon' } }) } }],
    });
    const result = await runRoute(app.routes[0], request());
    expect(result).toEqual({ status: 403, json: { detail: 'nope' }, headers: { Sunset: 'soon' } });
    expect(seen[0]).toBeInstanceOf(ForbiddenError);
  });

  it('gives every plugin the app\'s principal through principalOf', async () => {
    const app = bootstrap({
      routers: [[route('/me', async (req) => ({ status: 200, json: await principalOf(req) }))]],
      principal: (req) => (req.headers.authorization ? { id: 7, tierId: 2, isSuperuser: false, scopes: [], transport: 'bearer' } : null),
    });
    expect((await runRoute(app.routes[0], request())).json).toBeNull();
    const authed = createRequest({ method: 'GET', path: '/me', query: {}, headers: { authorization: 'x' }, body: undefined, clientAddress: '::1' });
    expect((await runRoute(app.routes[0], authed)).json).toMatchObject({ id: 7, tierId: 2 });
  });

  it('adds plugin routes, lets plugins transform the list, orders it and rejects clashes', () => {
    const ok = async () => ({ status: 200 });
    const app = bootstrap({
      routers: [[route('/users/:id', ok)]],
      plugins: [
        { name: 'me', routes: [route('/users/me', ok)] },
        { name: 'prefix', transformRoutes: (routes) => routes.map((r) => ({ ...r, path: `/api${r.path}` })) },
      ],
    });
    expect(app.routes.map((r) => r.path)).toEqual(['/api/users/me', '/api/users/:id']);
    expect(() => bootstrap({ routers: [[route('/a/:id', ok)], [route('/a/:key', ok)]] })).toThrow(/Route clash/);
  });

  it('runs migration sets in the order listed, then init; close runs in reverse', async () => {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
    const events: string[] = [];
    const set = (name: string) => ({
      name,
      migrations: { '0001': { up: async () => void events.push(`${name} up`), down: async () => {} } },
    });
    const app = bootstrap({
      plugins: [
        { name: 'a', init: async () => void events.push('a init'), close: async () => void events.push('a close') },
        { name: 'b', init: async () => void events.push('b init'), close: async () => void events.push('b close') },
      ],
      migrations: [set('limits'), set('app'), set('account')],
    });
    await app.start(knex);
    await app.close();
    expect(events).toEqual(['limits up', 'app up', 'account up', 'a init', 'b init', 'b close', 'a close']);
    expect((await knex('knex_migrations').select('name')).map((r) => r.name)).toEqual(['limits/0001', 'app/0001', 'account/0001']);
    await knex.destroy();
  });
});
