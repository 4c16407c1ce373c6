// The example app served in this process on a real server (Koa unless an adapter is
// asked), with a superuser and a few users: what the example's in-process suites start from.
import { expect } from 'vitest';
import { buildApp, type BuildOptions, type ExampleApp } from '../../examples/app/src/app';
import { ensureFirstSuperuser } from '../../examples/app/src/first-superuser';
import { ADAPTERS, serve, type AdapterName } from '../../examples/app/src/server';
import { ENGINES, openDatabase, type Engine, type TestDatabase } from '../fixtures/db';
import { Client, type Answer } from '../plugins/account/fixture';

export const PASSWORD = 'a perfectly fine passphrase';
export const ADMIN_PASSWORD = 'the admin passphrase';

/** A running example app and ways to talk to it. */
export interface ExampleServer {
  db: TestDatabase;
  app: ExampleApp;
  base: string;
  /** A fresh anonymous client. */
  client(): Client;
  /** A client signed in with a session cookie. */
  signedIn(username: string, password?: string): Promise<Client>;
  /** The superuser `admin`, signed in. */
  admin: Client;
  /** Ids of the users created at start, by username. */
  ids: Record<string, number>;
  close(): Promise<void>;
}

/** An unsafe request with the session's CSRF header. */
export function send(c: Client, method: string, path: string, json: unknown): Promise<Answer> {
  return c.request(method, path, { json, headers: { 'x-csrf-token': c.jar.get('cs_csrf') ?? '' } });
}

/** Every adapter on every engine under test, for `describe.each`. */
export const ADAPTER_ENGINES: [AdapterName, Engine][] = ADAPTERS.flatMap((adapter) =>
  ENGINES.map((engine): [AdapterName, Engine] => [adapter, engine]),
);

/** Starts the example on `engine` with `users` registered (password PASSWORD) and `admin` the first superuser. */
export async function startExample(
  engine: Engine,
  options: { build?: BuildOptions; trustedProxies?: string[]; users?: string[]; adapter?: AdapterName } = {},
): Promise<ExampleServer> {
  const db = await openDatabase(engine);
  const app = buildApp(db.knex, {
    secretKey: 'example-test-secret-0123456789abcdefghij',
    bcryptRounds: 4,
    // A test process's own pauses (a long synchronous step, a busy machine) must not turn
    // the suites' requests into 503s; the shedding suite sets its own bounds.
    loadShedding: { maxEventLoopDelayMs: 0, maxHeapUsedRatio: 0 },
    ...options.build,
  });
  await app.start(db.knex);
  await ensureFirstSuperuser(
    db.knex,
    app.auth,
    { username: 'admin', email: 'admin@example.com', password: ADMIN_PASSWORD },
    () => {},
  );
  const server = await serve(app, {
    adapter: options.adapter ?? 'koa',
    host: '127.0.0.1',
    port: 0,
    trustedProxies: options.trustedProxies,
  });
  const base = server.url;
  const client = () => new Client(base);
  const signedIn = async (username: string, password = PASSWORD) => {
    const c = client();
    expect((await c.login(username, password)).status).toBe(200);
    return c;
  };
  const ids: Record<string, number> = {};
  for (const name of options.users ?? []) {
    const created = await client().request('POST', '/api/v1/users/', {
      json: { name, username: name, email: `${name}@example.com`, password: PASSWORD },
    });
    expect(created.status).toBe(201);
    ids[name] = created.body.id;
  }
  return {
    db,
    app,
    base,
    client,
    signedIn,
    ids,
    admin: await signedIn('admin', ADMIN_PASSWORD),
    async close() {
      await server.close();
      await app.close();
      await db.destroy();
    },
  };
}
