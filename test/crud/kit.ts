// What every area of the CRUD suite shares: one database per engine, servers mounted
// through the adapter under test, and a small fetch client.
import type { Knex } from 'knex';
import { afterAll, beforeAll } from 'vitest';
import { routesOf, type CrudOptions, type CrudRouter, type ErrorLogger, type RouteDescriptor } from '@crudsmith/core';
import type { AdapterHarness, MountedServer } from '../adapters/conformance';
import { openDatabase, type Engine, type TestDatabase } from '../fixtures/db';
import { createSchema, Item } from '../fixtures/models';
import { seedItems, seedLibrary } from '../fixtures/seed';
import { ItemCreate, ItemDelete, ItemRead, ItemUpdate } from './schemas';

/** An answer: status, headers and the body, parsed when it is JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A fetch client for one mounted server, paths relative to its prefix. */
export interface Api {
  url: string;
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  patch(path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  del(path: string, headers?: Record<string, string>): Promise<Answer>;
  /** Sends a raw body (for malformed JSON and the like). */
  send(method: string, path: string, init: { body?: string; headers?: Record<string, string> }): Promise<Answer>;
}

/** One engine's environment, valid once the suite's beforeAll ran. */
export interface CrudEnv {
  readonly engine: Engine;
  readonly knex: Knex;
  /** Errors the adapter logged as unexpected (500s). */
  readonly logged: unknown[];
  /** Mounts routers under `/api` on a fresh server, closed when the engine's suite ends. */
  serve(...routers: (CrudRouter | RouteDescriptor[])[]): Promise<Api>;
  /** Empties the items table and inserts the six fixture items again (ids 1..6). */
  resetItems(): Promise<void>;
}

const PREFIX = '/api';

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('application/json');
  return { status: res.status, headers: res.headers, body: json && text !== '' ? JSON.parse(text) : text };
}

/** Where an engine's suite keeps its data, when not a fresh database of the machine's server. */
export interface CrudBackend {
  /** Opens the suite's empty database. */
  open(): Promise<TestDatabase>;
  /** Headers every request carries, asked just before it is sent. */
  headers?(): Promise<Record<string, string>>;
  /** Sees every answer's headers, as the client would. */
  seen?(headers: Headers): void;
}

function client(server: MountedServer, backend?: CrudBackend): Api {
  const send: Api['send'] = async (method, path, init) => {
    const headers = { ...(await backend?.headers?.()), ...init.headers };
    const res = await fetch(`${server.url}${PREFIX}${path}`, { method, body: init.body, headers });
    backend?.seen?.(res.headers);
    return answer(res);
  };
  const json =
    (method: string) =>
    (path: string, body?: unknown, headers: Record<string, string> = {}) =>
      send(method, path, {
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      });
  return {
    url: server.url,
    get: (path, headers = {}) => send('GET', path, { headers }),
    post: json('POST'),
    patch: json('PATCH'),
    del: (path, headers = {}) => send('DELETE', path, { headers }),
    send,
  };
}

/**
 * Registers the hooks that open one database for `engine` (or `backend`'s; fixture schema, library seed)
 * and close every server and the database at the end.
 */
export function crudEnv(harness: AdapterHarness, engine: Engine, backend?: CrudBackend): CrudEnv {
  let db: TestDatabase | undefined;
  const servers: MountedServer[] = [];
  const logged: unknown[] = [];
  const logger: ErrorLogger = { error: (_message, error) => void logged.push(error) };

  beforeAll(async () => {
    db = await (backend ? backend.open() : openDatabase(engine));
    await createSchema(db.knex);
    await seedLibrary(db.knex);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await db?.destroy();
  });

  const knexOf = (): Knex => {
    if (!db) throw new Error('the database opens in beforeAll');
    return db.knex;
  };

  return {
    engine,
    logged,
    get knex() {
      return knexOf();
    },
    async serve(...routers) {
      const server = await harness.mount(routesOf(...routers), { prefix: PREFIX, logger });
      servers.push(server);
      return client(server, backend);
    },
    async resetItems() {
      await knexOf()('items').truncate();
      await seedItems(knexOf());
    },
  };
}

/** The example's item endpoints (select schema, soft delete, db_delete) at `/items`, plus `extra`. */
export function itemOptions(knex: Knex, extra: Partial<CrudOptions> = {}): CrudOptions {
  return {
    session: knex,
    model: Item,
    path: '/items',
    createSchema: ItemCreate,
    updateSchema: ItemUpdate,
    deleteSchema: ItemDelete,
    selectSchema: ItemRead,
    ...extra,
  };
}

/** A row as stored, booleans read as booleans on every engine. */
export async function storedRow(knex: Knex, table: string, id: number): Promise<Record<string, any> | undefined> {
  const row = await knex(table).where({ id }).first();
  if (row && 'is_deleted' in row) row.is_deleted = Boolean(Number(row.is_deleted));
  return row;
}
