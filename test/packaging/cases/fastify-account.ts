// The fastify-account consumer: compiled in the user's project with its own tsc, and run with plain node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { compile, esmConsumer, start, json, IOREDIS, foreignFiles } from '../user-project';

/** Registers the case of this consumer, run in the project `env`. */
export function fastifyAccountCase(): void {
  it('an ES module on Fastify (module node16) registers, signs in with a session and a bearer token, and creates behind auth', async () => {
    // Fastify ships its types: nothing but @types/node is needed.
    const folder = esmConsumer('fastify-account', { module: 'node16' });
    const files = await compile('fastify-account');
    expect(
      foreignFiles(files, ['@types/express', '@types/koa', 'koa-session', '@types/busboy', '@types/co-body']),
    ).toEqual([]);
    // Sessions in the database through @crudsmith/account: no ioredis type in the program.
    expect(foreignFiles(files, IOREDIS)).toEqual([]);
    expect(readFileSync(join(folder, 'dist', 'app.js'), 'utf8')).toMatch(
      /^import \{ account \} from '@crudsmith\/account';$/m,
    );

    const url = await start('fastify-account', 'dist/app.js', { DATABASE_FILE: 'notes.sqlite3' });
    const password = 'a long and unusual passphrase';
    const registered = await fetch(
      `${url}/auth/register`,
      json('POST', { username: 'ada', email: 'ada@example.com', password }),
    );
    expect(registered.status).toBe(201);
    expect(await registered.json()).toMatchObject({ id: 1, username: 'ada', email: 'ada@example.com' });
    expect((await fetch(`${url}/notes`, json('POST', { text: 'anonymous' }))).status).toBe(401);

    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const login = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ username: 'ada', password }),
    });
    expect(login.status).toBe(200);
    const { csrf_token } = (await login.json()) as { csrf_token: string };
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    expect(await (await fetch(`${url}/auth/me`, { headers: { cookie } })).json()).toMatchObject({
      id: 1,
      transport: 'session',
    });
    expect((await fetch(`${url}/notes`, json('POST', { text: 'no csrf' }, { cookie }))).status).toBe(403);
    expect(
      (await fetch(`${url}/notes`, json('POST', { text: 'from a session' }, { cookie, 'x-csrf-token': csrf_token })))
        .status,
    ).toBe(201);

    const token = await fetch(`${url}/auth/token`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ username: 'ada', password }),
    });
    const { access_token } = (await token.json()) as { access_token: string };
    const bearer = { authorization: `Bearer ${access_token}` };
    expect(await (await fetch(`${url}/auth/me`, { headers: bearer })).json()).toMatchObject({
      id: 1,
      transport: 'bearer',
    });
    expect((await fetch(`${url}/notes`, json('POST', { text: 'from a token' }, bearer))).status).toBe(201);
    expect(await (await fetch(`${url}/notes`)).json()).toEqual({
      data: [
        { id: 1, text: 'from a session' },
        { id: 2, text: 'from a token' },
      ],
      total_count: 2,
    });
  });
}
