import { describe, expect, it } from 'vitest';
import knexFactory from 'knex';
import { HashPool } from '@crudsmith/core/auth';
import { createRequest } from '@crudsmith/core/adapter';
import {
  admin,
  AdminDependencyError,
  AdminModelTypeError,
  AdminSchemaError,
  type AdminOptions,
  type ModelView,
} from '@crudsmith/admin';
import { koaHarness } from '../../adapters/koa-harness';
import { ADMIN, Gadget, Item, ItemCreate, ItemUpdate, SECRET, startAdminApp } from './fixture';

// Model views and settings are checked at startup: each mistake is a typed error naming it.
const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
const items: ModelView = {
  model: Item,
  allowedActions: ['view', 'create', 'update', 'delete'],
  createSchema: ItemCreate,
  updateSchema: ItemUpdate,
};
const build = (models: Record<string, ModelView>, options: Partial<AdminOptions> = {}) =>
  admin({ knex, secretKey: SECRET, models, ...options });

describe('admin() at startup', () => {
  it('builds the routes of the allowed actions only', () => {
    const plugin = build({
      items,
      gadgets: { model: Gadget, allowedActions: ['view'], createSchema: ['label'], updateSchema: ['label'] },
    });
    const paths = plugin.routes!.map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /admin/items/',
        'POST /admin/items/form_create',
        'DELETE /admin/items/bulk-delete',
        'GET /admin/gadgets/',
      ]),
    );
    expect(paths.filter((p) => p.includes(' /admin/gadgets/'))).toEqual([
      'GET /admin/gadgets/',
      'GET /admin/gadgets/get_model_list',
    ]);
    expect(paths.filter((p) => p.includes(' /admin/crud/gadgets')).sort()).toEqual([
      'GET /admin/crud/gadgets',
      'GET /admin/crud/gadgets/:id',
    ]);
  });

  it('offers no JSON update for a view whose address change clears a proof flag (verifiedEmail)', () => {
    // Here `category` stands for the address and `in_stock` for its flag: the generated
    // route would write a new value and leave the flag as it was.
    const plugin = build({ items: { ...items, verifiedEmail: { column: 'category', flag: 'in_stock' } } });
    const api = plugin.routes!.filter((r) => r.path.startsWith('/admin/crud/items')).map((r) => r.method);
    expect(api.sort()).toEqual(['DELETE', 'GET', 'GET', 'POST']);
    expect(plugin.routes!.map((r) => `${r.method} ${r.path}`)).toContain('POST /admin/items/form_update/:id');
  });

  it('refuses a schema field that is not a column of the model (AdminSchemaError)', () => {
    expect(() => build({ items: { ...items, createSchema: ['name', 'colour'] } })).toThrow(AdminSchemaError);
    expect(() => build({ items: { ...items, createSchema: ['name', 'colour'] } })).toThrow(/colour/);
    expect(() => build({ items: { ...items, selectSchema: ['nope'] } })).toThrow(AdminSchemaError);
    expect(() => build({ items: { ...items, passwordTransformer: { field: 'password', column: 'nope' } } })).toThrow(
      AdminSchemaError,
    );
  });

  it('refuses a model that is not an objection model class (AdminModelTypeError)', () => {
    expect(() => build({ items: { ...items, model: class NotAModel {} as never } })).toThrow(AdminModelTypeError);
  });

  it('refuses unknown or no actions, reserved or odd names, bad references (AdminSchemaError)', () => {
    expect(() => build({ items: { ...items, allowedActions: [] } })).toThrow(AdminSchemaError);
    expect(() => build({ items: { ...items, allowedActions: ['view', 'purge' as never] } })).toThrow(/purge/);
    expect(() => build({ login: items })).toThrow(AdminSchemaError);
    expect(() => build({ 'a/b': items })).toThrow(AdminSchemaError);
    expect(() => build({ items: { ...items, references: { category: 'tiers' } } })).toThrow(/tiers/);
    expect(() => build({ items }, { mountPath: 'admin panel' })).toThrow(AdminSchemaError);
  });

  it('refuses missing dependencies: knex, a secret key of 32 characters (AdminDependencyError)', () => {
    expect(() => admin({ secretKey: SECRET, models: { items } } as unknown as AdminOptions)).toThrow(
      AdminDependencyError,
    );
    expect(() => build({ items }, { secretKey: 'short' })).toThrow(AdminDependencyError);
  });
});

describe('admin() secretKey as a function', () => {
  it('is asked once and checked when first used', async () => {
    let asked = 0;
    const plugin = build({ items }, { secretKey: () => (asked++, SECRET) });
    const login = plugin.routes!.find((r) => r.operation === 'admin_login_page')!;
    const request = () =>
      createRequest({
        method: 'GET',
        path: '/admin/login',
        query: {},
        headers: {},
        body: undefined,
        clientAddress: '127.0.0.1',
      });
    expect((await login.handler(request())).status).toBe(200);
    expect((await login.handler(request())).status).toBe(200);
    expect(asked).toBe(1);
    const logged: string[] = [];
    const short = build(
      { items },
      { secretKey: async () => 'short', logger: { error: (message) => void logged.push(message) } },
    ).routes!.find((r) => r.operation === 'admin_login_page')!;
    expect((await short.handler(request())).status).toBe(500);
    expect(logged).toEqual(['admin GET /admin/login failed']);
  });
});

describe('admin() with secureCookies', () => {
  it('marks every cookie Secure, with __Secure- names limited to the mount path', async () => {
    const plugin = build({ items }, { secureCookies: true, mountPath: '/panel' });
    expect(plugin.sessionManager.cookieName).toBe('__Secure-cs_admin');
    const login = plugin.routes!.find((r) => r.operation === 'admin_login_page')!;
    const page = await login.handler(
      createRequest({
        method: 'GET',
        path: '/panel/login',
        query: {},
        headers: {},
        body: undefined,
        clientAddress: '127.0.0.1',
      }),
    );
    expect(page.cookies).toEqual([
      expect.objectContaining({
        name: '__Secure-cs_admin_login',
        secure: true,
        httpOnly: true,
        sameSite: 'strict',
        path: '/panel',
      }),
    ]);
    expect(plugin.sessionManager.clearCookie()).toMatchObject({ secure: true, path: '/panel', sameSite: 'strict' });
  });
});

describe('admin() with hashPool', () => {
  it('hashes in the pool the app shares: its bounds hold across plugins, and closing the admin leaves it running', async () => {
    const pool = new HashPool({ threads: 1, perClient: 4, maxPending: 1 });
    try {
      const env = await startAdminApp(koaHarness, 'sqlite', { hashPool: pool });
      // Other plugins hold the pool's slot and the one more a newcomer address may take: the
      // admin's sign-in is refused overall.
      const releases = [pool.acquire(), pool.acquire('203.0.113.9')];
      expect((await env.client().login(ADMIN.username, ADMIN.password)).status).toBe(503);
      for (const release of releases) release();
      expect((await env.client().login(ADMIN.username, ADMIN.password)).status).toBe(303);
      const inFlight = pool.hash('still hashing', 10);
      await env.close();
      expect(await inFlight).toMatch(/^\$2[aby]\$10\$/);
    } finally {
      await pool.close();
    }
  });
});
