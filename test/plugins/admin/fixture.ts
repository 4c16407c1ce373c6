// What the admin suites share: an app's models (an integer-keyed item with soft delete, a
// UUID-keyed gadget, users with a hashed password), the admin plugin wired through
// bootstrap, a real server through an adapter harness, and a browser-like client that
// keeps cookies, does not follow redirects, and reads the CSRF tokens off the pages.
import { randomUUID } from 'node:crypto';
import { Model } from 'objection';
import { IsArray, IsBoolean, IsNumber, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { bootstrap, type MigrationSet } from '@crudsmith/core';
import { admin, type AdminOptions, type AdminPlugin, type ModelView } from '@crudsmith/admin';
import type { AdapterHarness, MountedServer } from '../../adapters/conformance';
import { openDatabase, type Engine, type TestDatabase } from '../../fixtures/db';

export class ItemCreate {
  @IsString() @MaxLength(40) name!: string;
  @IsOptional() @IsString() @MaxLength(40) category?: string | null;
  @IsOptional() @IsNumber() price?: number | null;
  @IsOptional() @IsBoolean() in_stock?: boolean;
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
}
export class ItemUpdate {
  @IsOptional() @IsString() @MaxLength(40) name?: string;
  @IsOptional() @IsString() @MaxLength(40) category?: string | null;
  @IsOptional() @IsNumber() price?: number | null;
  @IsOptional() @IsBoolean() in_stock?: boolean;
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
}

const datetime = { type: ['string', 'null'], format: 'date-time' };

export class Item extends Model {
  static override tableName = 'items';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      name: { type: 'string', maxLength: 40 },
      category: { type: ['string', 'null'], maxLength: 40 },
      price: { type: ['number', 'null'] },
      in_stock: { type: 'boolean' },
      tags: { type: ['array', 'null'], items: { type: 'string', enum: ['red', 'green', 'blue'] } },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: datetime,
      is_deleted: { type: 'boolean' },
      deleted_at: datetime,
    },
  };
}

export class Gadget extends Model {
  static override tableName = 'gadgets';
  static override jsonSchema = {
    type: 'object',
    properties: {
      uid: { type: 'string', format: 'uuid', maxLength: 36 },
      label: { type: 'string', maxLength: 40 },
      manual: { type: ['string', 'null'], maxLength: 200 },
    },
  };
  static override get idColumn() {
    return 'uid';
  }
}

export class UserCreate {
  @IsString() @MaxLength(20) username!: string;
  @IsString() @MinLength(8) @MaxLength(100) password!: string;
  @IsOptional() @IsNumber() tier_id?: number | null;
}
export class UserUpdate {
  @IsOptional() @IsString() @MaxLength(20) username?: string;
  @IsOptional() @IsString() @MinLength(8) @MaxLength(100) password?: string;
  @IsOptional() @IsNumber() tier_id?: number | null;
}

export class AppUser extends Model {
  static override tableName = 'app_users';
  static override jsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      username: { type: 'string', maxLength: 20 },
      hashed_password: { type: 'string' },
      tier_id: { type: ['integer', 'null'] },
    },
  };
}

export class Tier extends Model {
  static override tableName = 'tiers';
  static override jsonSchema = {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 20 } },
  };
  // Its users: an edit page of a tier lists them.
  static override get relationMappings() {
    return {
      users: {
        relation: Model.HasManyRelation,
        modelClass: AppUser,
        join: { from: 'tiers.id', to: 'app_users.tier_id' },
      },
    };
  }
}

export const appMigrations: MigrationSet = {
  name: 'admin-test-app',
  migrations: {
    '0001_tables': {
      async up(knex) {
        await knex.schema.createTable('items', (t) => {
          t.increments('id');
          t.string('name', 40).notNullable();
          t.string('category', 40).nullable();
          t.double('price').nullable();
          t.boolean('in_stock').notNullable().defaultTo(false);
          t.json('tags').nullable();
          t.datetime('created_at', { precision: 3 }).notNullable();
          t.datetime('updated_at', { precision: 3 }).nullable();
          t.boolean('is_deleted').notNullable().defaultTo(false);
          t.datetime('deleted_at', { precision: 3 }).nullable();
        });
        await knex.schema.createTable('gadgets', (t) => {
          t.string('uid', 36).primary();
          t.string('label', 40).notNullable();
          t.string('manual', 200).nullable();
        });
        await knex.schema.createTable('tiers', (t) => {
          t.increments('id');
          t.string('name', 20).notNullable().unique();
        });
        await knex.schema.createTable('app_users', (t) => {
          t.increments('id');
          t.string('username', 20).notNullable().unique();
          t.string('hashed_password', 100).notNullable();
          // unsigned: MariaDB's increments() is an unsigned int, and a foreign key must match it.
          t.integer('tier_id').unsigned().nullable().references('id').inTable('tiers');
        });
      },
      async down(knex) {
        await knex.schema.dropTable('app_users');
        await knex.schema.dropTable('tiers');
        await knex.schema.dropTable('gadgets');
        await knex.schema.dropTable('items');
      },
    },
  },
};

/** What the tiers view's afterWrite saw, in order. */
export const writes: string[] = [];

export const SECRET = 'admin-test-secret-key-that-is-long-enough-0123';
export const ADMIN = { username: 'root', password: 'correct horse battery staple' };

/** The items' view every admin app here starts from: all four actions, named by `name`. */
export const itemsView: ModelView = {
  model: Item,
  allowedActions: ['view', 'create', 'update', 'delete'],
  createSchema: ItemCreate,
  updateSchema: ItemUpdate,
  displayField: 'name',
};

/** The admin's options for the test app (overridable per suite). */
export function adminOptions(db: TestDatabase, options: Partial<AdminOptions> = {}): AdminOptions {
  return {
    knex: db.knex,
    mountPath: '/admin',
    secretKey: SECRET,
    bcryptRounds: 4,
    lockout: { threshold: 3, baseSeconds: 30 },
    models: {
      items: { ...itemsView, export: true, import: { maxBytes: 4096 } },
      gadgets: {
        model: Gadget,
        allowedActions: ['view', 'update', 'delete'],
        createSchema: ['uid', 'label'],
        updateSchema: ['label', 'manual'],
        files: {
          manual: {
            maxBytes: 1000,
            types: ['text/plain'],
            store: async (file) => `stored:${file.filename}:${file.size}`,
          },
        },
      },
      users: {
        model: AppUser,
        allowedActions: ['view', 'create', 'update'],
        createSchema: UserCreate,
        updateSchema: UserUpdate,
        passwordTransformer: { field: 'password', column: 'hashed_password' },
        references: { tier_id: 'tiers' },
      },
      tiers: {
        model: Tier,
        allowedActions: ['view', 'create'],
        createSchema: ['name'],
        updateSchema: ['name'],
        displayField: 'name',
        beforeWrite: (values) => ({ ...values, name: String(values.name).trim().toLowerCase() }),
        afterWrite: (action) => void writes.push(`tiers:${action}`),
      },
    },
    ...options,
  };
}

/** An answer: status, headers, the text (or parsed JSON) and the cookies it set. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  setCookies: Map<string, string>;
}

/** A browser-like client: keeps cookies, never follows redirects. */
export class Client {
  /** The session's CSRF token, read off the last page that showed it. */
  csrf = '';

  /** `jar` may be another client's, to carry its cookies to another server (another process). */
  constructor(
    readonly base: string,
    readonly jar = new Map<string, string>(),
  ) {}

  async request(
    method: string,
    path: string,
    options: {
      form?: Record<string, string | string[]>;
      json?: unknown;
      multipart?: FormData;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | FormData | undefined;
    if (options.multipart) {
      body = options.multipart;
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(options.form))
        for (const one of [value].flat()) params.append(key, one);
      body = params.toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    if (this.jar.size > 0) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${this.base}${path}`, { method, headers, body, redirect: 'manual' });
    const setCookies = new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      setCookies.set(name, line);
      if (value === '' || /max-age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await res.text();
    const token = /X-CSRF-Token&quot;:&quot;([A-Za-z0-9_-]+)&quot;/.exec(text);
    if (token) this.csrf = token[1];
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    return {
      status: res.status,
      headers: res.headers,
      text,
      json: isJson && text ? JSON.parse(text) : undefined,
      setCookies,
    };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }

  /** A form post with the session's CSRF token as its hidden field. */
  postForm(path: string, form: Record<string, string | string[]>) {
    return this.request('POST', path, { form: { csrf_token: this.csrf, ...form } });
  }

  /** Opens the login page and posts the form with its token; answers the post's answer. */
  async login(username = ADMIN.username, password = ADMIN.password): Promise<Answer> {
    const page = await this.get('/admin/login');
    const token = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const answer = await this.request('POST', '/admin/login', { form: { csrf_token: token, username, password } });
    if (answer.status === 303) await this.get('/admin/');
    return answer;
  }
}

/** One running app with the admin. */
export interface AdminEnv {
  db: TestDatabase;
  plugin: AdminPlugin;
  server: MountedServer;
  client(): Client;
  /** A signed-in client. */
  signedIn(): Promise<Client>;
  close(): Promise<void>;
}

/**
 * Starts the test app with the admin on `engine`, served by `harness`, with one admin user.
 * Under an adapter `prefix`, clients address paths below it (`/admin/` is `{prefix}/admin/`);
 * `migrations` add a suite's own tables.
 */
export async function startAdminApp(
  harness: AdapterHarness,
  engine: Engine,
  options: Partial<AdminOptions> = {},
  adapter: { prefix?: string; migrations?: MigrationSet[] } = {},
): Promise<AdminEnv> {
  const db = await openDatabase(engine);
  const plugin = admin(adminOptions(db, options));
  const app = bootstrap({ plugins: [plugin], migrations: [appMigrations, ...(adapter.migrations ?? [])] });
  await app.start(db.knex);
  await plugin.createAdminUser(ADMIN.username, ADMIN.password);
  const server = await harness.mount(app.routes, { prefix: adapter.prefix });
  const client = () => new Client(server.url + (adapter.prefix ?? ''));
  return {
    db,
    plugin,
    server,
    client,
    async signedIn() {
      const c = client();
      const answer = await c.login();
      if (answer.status !== 303) throw new Error(`sign-in failed: ${answer.status}`);
      return c;
    },
    async close() {
      await server.close();
      await app.close();
      await db.destroy();
    },
  };
}

/** Rows for the list tests: `n` items named item-01..., and two gadgets. */
export async function seed(db: TestDatabase, n: number): Promise<string[]> {
  const now = new Date();
  for (let i = 1; i <= n; i++) {
    await db.knex('items').insert({
      name: `item-${String(i).padStart(2, '0')}`,
      category: i % 2 ? 'odd' : 'even_50%',
      price: i,
      in_stock: i % 3 === 0,
      created_at: now,
    });
  }
  const uids = [randomUUID(), randomUUID()];
  await db.knex('gadgets').insert(uids.map((uid, i) => ({ uid, label: `gadget ${i}` })));
  return uids;
}
