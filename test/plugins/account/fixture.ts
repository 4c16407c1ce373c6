// What the account suites share: a user model and table like an app's, the plugin
// wired through bootstrap with a few protected test routes, a real listening server
// (through an adapter harness) and a fetch client with a cookie jar.
import { Model } from 'objection';
import { bootstrap, principalOf, type MigrationSet, type NeutralRequest, type RouteDescriptor } from '@crudsmith/core';
import { account, type AccountOptions, type AccountPlugin } from '@crudsmith/account';
import type { AdapterHarness, MountedServer } from '../../adapters/conformance';
import { openDatabase, type Engine, type TestDatabase } from '../../fixtures/db';

export class User extends Model {
  static override tableName = 'users';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: ['string', 'null'], maxLength: 30 },
      username: { type: 'string', maxLength: 20 },
      email: { type: 'string', maxLength: 50 },
      hashed_password: { type: ['string', 'null'] },
      is_superuser: { type: 'boolean' },
      is_verified: { type: 'boolean' },
      is_deleted: { type: 'boolean' },
      token_version: { type: 'integer' },
      tier_id: { type: ['integer', 'null'] },
      created_at: { type: 'string', format: 'date-time' },
    },
  };

  override $beforeInsert(): void {
    (this as any).created_at ??= new Date();
  }
}

export const userMigrations: MigrationSet = {
  name: 'test-app',
  migrations: {
    '0001_users': {
      async up(knex) {
        await knex.schema.createTable('users', (t) => {
          t.increments('id');
          t.string('name', 30).nullable();
          t.string('username', 20).notNullable().unique();
          t.string('email', 50).notNullable().unique();
          t.string('hashed_password', 100).nullable();
          t.boolean('is_superuser').notNullable().defaultTo(false);
          t.boolean('is_verified').notNullable().defaultTo(false);
          t.boolean('is_deleted').notNullable().defaultTo(false);
          t.integer('token_version').notNullable().defaultTo(0);
          t.integer('tier_id').nullable();
          t.datetime('created_at', { precision: 3 }).notNullable();
        });
      },
      async down(knex) {
        await knex.schema.dropTable('users');
      },
    },
  },
};

export const SECRET = 'test-secret-key-that-is-long-enough-0123456789';

/** A controllable clock: real time plus `skew` milliseconds. */
export const clock = { skew: 0, now: () => Date.now() + clock.skew };

/** Test routes under /api guarded by the plugin's dependencies. */
function apiRoutes(auth: AccountPlugin): RouteDescriptor[] {
  const r = (
    method: RouteDescriptor['method'],
    path: string,
    deps: RouteDescriptor['dependencies'],
    handler: (req: NeutralRequest) => Promise<unknown>,
  ): RouteDescriptor => ({
    method,
    path,
    operation: `test_${method}_${path}`,
    dependencies: deps,
    handler: async (req) => ({ status: 200, json: await handler(req) }),
  });
  const user = auth.currentUser();
  return [
    r('GET', '/api/private', [user], async (req) => ({ id: (await req.resolve(user))!.id })),
    r('POST', '/api/private', [user], async (req) => ({ id: (await req.resolve(user))!.id })),
    r('GET', '/api/whoami', [user], async (req) => req.resolve(user)),
    r('GET', '/api/optional', [auth.currentUser({ optional: true })], async (req) => ({
      user: (await req.resolve(auth.currentUser({ optional: true })))?.id ?? null,
    })),
    r('GET', '/api/admin', [auth.currentUser({ superuser: true })], async () => ({ ok: true })),
    r('GET', '/api/verified', [auth.currentUser({ verified: true })], async () => ({ ok: true })),
    r('GET', '/api/scoped', [auth.currentUser({ scopes: ['items:write'] })], async () => ({ ok: true })),
    r('GET', '/api/principal', [], async (req) => principalOf(req)),
    r('POST', '/api/principal', [], async (req) => principalOf(req)),
    r('POST', '/api/sudo', [user], async (req) => {
      const body = req.body as { password?: string; code?: string } | undefined;
      const grant = await auth.sudo.elevate(req, { password: body?.password, code: body?.code });
      return { expires_at: grant.expiresAt.toISOString(), access_token: grant.accessToken ?? null };
    }),
    r('POST', '/api/sensitive', [auth.requireSudo()], async () => ({ ok: true })),
    r('POST', '/api/fresh', [auth.requireFreshSignIn()], async () => ({ ok: true })),
  ];
}

/** An answer: status, headers and the parsed JSON body. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  cookies: Map<string, string>;
}

/** A browser-like client: it keeps cookies and sends them back. */
export class Client {
  /** `jar` may be another client's, to carry its cookies to another server (another process). */
  constructor(
    readonly base: string,
    readonly jar = new Map<string, string>(),
  ) {}

  /** `redirect: 'manual'` answers a 3xx as it is (its Location in `headers`) instead of following it. */
  async request(
    method: string,
    path: string,
    options: {
      json?: unknown;
      form?: Record<string, string>;
      headers?: Record<string, string>;
      cookies?: boolean;
      redirect?: 'manual';
    } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    if (options.cookies !== false && this.jar.size > 0)
      headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${this.base}${path}`, { method, headers, body, redirect: options.redirect });
    const setCookies = new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = decodeURIComponent(pair.slice(index + 1));
      setCookies.set(name, line);
      if (value === '' || /max-age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json');
    return {
      status: res.status,
      headers: res.headers,
      body: json && text ? JSON.parse(text) : text || undefined,
      cookies: setCookies,
    };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }

  /** An unsafe request carrying the CSRF header from the jar's CSRF cookie. */
  post(path: string, json?: unknown, headers: Record<string, string> = {}) {
    return this.request('POST', path, { json, headers: { 'x-csrf-token': this.jar.get('cs_csrf') ?? '', ...headers } });
  }

  del(path: string, headers: Record<string, string> = {}) {
    return this.request('DELETE', path, { headers: { 'x-csrf-token': this.jar.get('cs_csrf') ?? '', ...headers } });
  }

  login(username: string, password: string) {
    return this.request('POST', '/auth/login', { form: { username, password } });
  }
}

/** One running app: the plugin, its database and its server. */
export interface AccountEnv {
  db: TestDatabase;
  auth: AccountPlugin;
  server: MountedServer;
  client(): Client;
  /** Creates a user directly (through the plugin), answering its id. */
  user(username: string, options?: { password?: string; superuser?: boolean; verified?: boolean }): Promise<number>;
  close(): Promise<void>;
}

export const PASSWORD = 'correct horse battery staple';

/**
 * Starts an app with the plugin on `engine`, served by `harness`. With `shared`, the app
 * uses that database (another app's: a second process of one deployment) and leaves it open.
 */
export async function startAccountApp(
  harness: AdapterHarness,
  engine: Engine,
  options: Partial<AccountOptions> = {},
  shared?: TestDatabase,
): Promise<AccountEnv> {
  const db = shared ?? (await openDatabase(engine));
  const auth = account({
    knex: db.knex,
    userModel: User,
    secretKey: SECRET,
    path: '/auth',
    session: { managementRoutes: true },
    bearer: { refresh: 'body' },
    password: { bcryptRounds: 4 },
    lockout: { threshold: 5, baseSeconds: 30 },
    scopesOf: (user) => (user.is_superuser ? ['items:read', 'items:write'] : ['items:read']),
    now: clock.now,
    ...options,
  });
  const app = bootstrap({
    routers: [apiRoutes(auth)],
    plugins: [auth],
    principal: auth.principal,
    migrations: [userMigrations],
  });
  await app.start(db.knex);
  const server = await harness.mount(app.routes, { sessions: auth.sessionManager ? [auth.sessionManager] : [] });
  return {
    db,
    auth,
    server,
    client: () => new Client(server.url),
    async user(username, opts = {}) {
      const created = await auth.createUser(
        { username, email: `${username.toLowerCase()}@example.com`, password: opts.password ?? PASSWORD },
        { superuser: opts.superuser, verified: opts.verified },
      );
      return Number(created.id);
    },
    async close() {
      await server.close();
      await app.close();
      if (!shared) await db.destroy();
    },
  };
}
