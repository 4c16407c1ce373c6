import { describe, expect, it } from 'vitest';
import knexFactory from 'knex';
import {
  bootstrap,
  ConfigurationError,
  ForbiddenError,
  principalOf,
  type MigrationSet,
  type NeutralRequest,
  type Plugin,
  type RouteDescriptor,
} from '@crudsmith/core';
import { createRequest, runRoute } from '@crudsmith/core/adapter';

const request = (path = '/x'): NeutralRequest =>
  createRequest({ method: 'GET', path, query: {}, headers: {}, body: undefined, clientAddress: '127.0.0.1' });

const route = (
  path: string,
  handler: RouteDescriptor['handler'],
  dependencies: RouteDescriptor['dependencies'] = [],
): RouteDescriptor => ({
  method: 'GET',
  path,
  operation: `op${path.replace(/\W/g, '_')}`,
  dependencies,
  handler,
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
      routers: [
        [
          route('/x', async () => (order.push('handler'), { status: 200, json: 'ok' }), [
            () => void order.push('dependency'),
          ]),
        ],
      ],
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
      routers: [
        [
          route('/x', async () => {
            throw new ForbiddenError('nope');
          }),
        ],
      ],
      plugins: [
        {
          name: 'headers',
          hooks: {
            onError: (_r, _x, e) => void seen.push(e),
            after: (_r, _x, result) => ({ ...result, headers: { Sunset: 'soon' } }),
          },
        },
      ],
    });
    const result = await runRoute(app.routes[0], request());
    expect(result).toEqual({ status: 403, json: { detail: 'nope' }, headers: { Sunset: 'soon' } });
    expect(seen[0]).toBeInstanceOf(ForbiddenError);
  });

  it("gives every plugin the app's principal through principalOf", async () => {
    const app = bootstrap({
      routers: [[route('/me', async (req) => ({ status: 200, json: await principalOf(req) }))]],
      principal: (req) =>
        req.headers.authorization ? { id: 7, tierId: 2, isSuperuser: false, scopes: [], transport: 'bearer' } : null,
    });
    expect((await runRoute(app.routes[0], request())).json).toBeNull();
    const authed = createRequest({
      method: 'GET',
      path: '/me',
      query: {},
      headers: { authorization: 'x' },
      body: undefined,
      clientAddress: '::1',
    });
    expect((await runRoute(app.routes[0], authed)).json).toMatchObject({ id: 7, tierId: 2 });
  });

  it('adds plugin routes, orders the list and rejects clashes', () => {
    const ok = async () => ({ status: 200 });
    const app = bootstrap({
      routers: [[route('/users/:id', ok)]],
      plugins: [{ name: 'me', routes: [route('/users/me', ok)] }],
    });
    expect(app.routes.map((r) => r.path)).toEqual(['/users/me', '/users/:id']);
    expect(() => bootstrap({ routers: [[route('/a/:id', ok)], [route('/a/:key', ok)]] })).toThrow(/Route clash/);
  });

  it("runs the plugins' migration sets, then the app's, then init; close runs in reverse", async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    const events: string[] = [];
    const app = bootstrap({
      plugins: [
        {
          name: 'a',
          migrations: set('limits', events),
          init: async () => void events.push('a init'),
          close: async () => void events.push('a close'),
        },
        {
          name: 'b',
          migrations: set('account', events),
          init: async () => void events.push('b init'),
          close: async () => void events.push('b close'),
        },
      ],
      migrations: [{ ...set('app', events), after: ['limits'], before: ['account'] }],
    });
    expect(app.migrations.map((m) => m.name)).toEqual(['limits', 'app', 'account']);
    await app.start(knex);
    await app.close();
    expect(events).toEqual(['limits up', 'app up', 'account up', 'a init', 'b init', 'b close', 'a close']);
    expect((await knex('crudsmith_migrations').select('name')).map((r) => r.name)).toEqual([
      'limits/0001',
      'app/0001',
      'account/0001',
    ]);
    await knex.destroy();
  });

  it("runs a plugin's migrations after those of the plugins it depends on", () => {
    const app = bootstrap({
      plugins: [
        { name: 'admin', dependsOn: ['users'], migrations: set('admin') },
        { name: 'users', migrations: set('users') },
      ],
      migrations: [set('app')],
    });
    expect(app.migrations.map((m) => m.name)).toEqual(['users', 'admin', 'app']);
  });

  it('fails at startup naming a plugin that another depends on and that is missing', () => {
    expect(() => bootstrap({ plugins: [{ name: 'admin', dependsOn: ['account'] }] })).toThrow(ConfigurationError);
    expect(() => bootstrap({ plugins: [{ name: 'admin', dependsOn: ['account'] }] })).toThrow(
      /admin needs the account plugin/,
    );
    expect(() => bootstrap({ plugins: [{ name: 'x' }, { name: 'x' }] })).toThrow(/Two plugins are named x/);
  });

  it("fails at startup on migration sets that name an unknown set, wait on each other, or repeat a plugin's", () => {
    expect(() => bootstrap({ migrations: [{ ...set('app'), after: ['tiers'] }] })).toThrow(
      /app runs after tiers, which is not in the app/,
    );
    expect(() =>
      bootstrap({
        migrations: [
          { ...set('a'), after: ['b'] },
          { ...set('b'), after: ['a'] },
        ],
      }),
    ).toThrow(/cycle: a, b/);
    const plugin: Plugin = { name: 'account', migrations: set('account') };
    expect(() => bootstrap({ plugins: [plugin], migrations: [set('account')] })).toThrow(/comes from its plugin/);
  });

  it("asks each hook's appliesTo once per route at bootstrap, and runs the hook only on the routes it chose", async () => {
    const asked: string[] = [];
    const ran: string[] = [];
    const plugin: Plugin = {
      name: 'scoped',
      hooks: {
        appliesTo: (r) => (asked.push(r.path), r.path.startsWith('/guarded')),
        before: (_req, r) => void ran.push(`before ${r.path}`),
        after: (_req, r) => void ran.push(`after ${r.path}`),
      },
    };
    const ok = async () => ({ status: 200 });
    const app = bootstrap({ routers: [[route('/guarded/a', ok), route('/open', ok)]], plugins: [plugin] });
    expect(asked.sort()).toEqual(['/guarded/a', '/open']);
    for (let i = 0; i < 3; i++) for (const r of app.routes) await runRoute(r, request(r.path));
    expect(asked).toHaveLength(2);
    expect(ran).toEqual([
      'before /guarded/a',
      'after /guarded/a',
      'before /guarded/a',
      'after /guarded/a',
      'before /guarded/a',
      'after /guarded/a',
    ]);
  });

  it("keeps each wrapped route's dependencies, resolved once, after the before hooks", async () => {
    const order: string[] = [];
    const dependency = () => void order.push('dependency');
    const app = bootstrap({
      routers: [[route('/x', async () => (order.push('handler'), { status: 200 }), [dependency])]],
      plugins: [{ name: 'trace', hooks: { before: () => void order.push('before') } }],
    });
    expect(app.routes[0].dependencies).toEqual([dependency]);
    await runRoute(app.routes[0], request());
    expect(order).toEqual(['before', 'dependency', 'handler']);
  });
  it('serves a route no hook applies to the same way: dependencies once and in order, errors rendered by its logger', async () => {
    const order: string[] = [];
    const logged: string[] = [];
    const logger = { error: (message: string) => void logged.push(message) };
    const app = bootstrap({
      routers: [
        [
          route('/x', async () => (order.push('handler'), { status: 200, json: 'ok' }), [
            () => void order.push('first'),
            async () => void order.push('second'),
          ]),
          route('/forbidden', async () => {
            throw new ForbiddenError('no');
          }),
          route('/thrown', () => {
            throw new Error('secret');
          }),
        ],
      ],
      logger,
    });
    const byPath = (path: string) => app.routes.find((r) => r.path === path)!;
    expect(await runRoute(byPath('/x'), request())).toEqual({ status: 200, json: 'ok' });
    expect(order).toEqual(['first', 'second', 'handler']);
    expect(byPath('/x').dependencies).toHaveLength(2);
    expect(await runRoute(byPath('/forbidden'), request())).toMatchObject({ status: 403, json: { detail: 'no' } });
    const thrown = await runRoute(byPath('/thrown'), request());
    expect(thrown.status).toBe(500);
    expect(JSON.stringify(thrown.json)).not.toContain('secret');
    expect(logged).toHaveLength(1);
  });
});

function set(name: string, events: string[] = []): MigrationSet {
  return { name, migrations: { '0001': { up: async () => void events.push(`${name} up`), down: async () => {} } } };
}
