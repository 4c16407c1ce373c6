import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnApp, type AppProcess } from './spawn-app';

/** One parsed line of the example's request log. */
interface Line {
  level: number;
  msg: string;
  requestId: string;
  method: string;
  route: string | null;
  status: number;
  durationMs: number;
  err?: { message: string; stack: string };
}

const INFO = 30;
const WARN = 40;
const ERROR = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// pino writes one JSON object a line on stdout; the process's other output is plain text.
function requestLines(output: string): Line[] {
  return output.split('\n').flatMap((text) => {
    if (!text.startsWith('{')) return [];
    const line = JSON.parse(text) as Line;
    return line.msg === 'request' ? [line] : [];
  });
}

// The example as `npm start` runs it, logging through pino on every adapter.
describe.each(['koa', 'express', 'fastify'])('request log of the example on %s', (adapter) => {
  let app: AppProcess;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'crudsmith-log-'));
    app = await spawnApp({ ADAPTER: adapter, DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // The log is written as the answer ends: wait for the line of `id` to appear.
  async function lineOf(id: string): Promise<Line> {
    for (let waited = 0; waited < 5000; waited += 50) {
      const found = requestLines(app.output()).filter((line) => line.requestId === id);
      if (found.length > 0) {
        // Once more after a pause: a second line for the same request would be a fault.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const again = requestLines(app.output()).filter((line) => line.requestId === id);
        expect(again).toHaveLength(1);
        return again[0];
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no request line for ${id} in:\n${app.output()}`);
  }

  async function get(path: string, init: RequestInit = {}): Promise<{ status: number; id: string; text: string }> {
    const res = await fetch(`${app.url}${path}`, init);
    return { status: res.status, id: res.headers.get('x-request-id') ?? '', text: await res.text() };
  }

  it('writes one line per request with method, route pattern, status, duration and the id it echoes', async () => {
    const res = await get('/api/v1/items/12345', { headers: { 'X-Request-Id': 'client-id.42:a/b+c=@d_e' } });
    expect(res.status).toBe(404);
    expect(res.id).toBe('client-id.42:a/b+c=@d_e');
    const line = await lineOf(res.id);
    expect(line).toMatchObject({ level: WARN, method: 'GET', route: '/api/v1/items/:id', status: 404 });
    expect(line.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(line)).not.toContain('12345');

    const ok = await get('/api/v1/items?name=secret-query-value');
    expect(ok.status).toBe(200);
    expect(await lineOf(ok.id)).toMatchObject({ level: INFO, method: 'GET', route: '/api/v1/items', status: 200 });
    expect(app.output()).not.toContain('secret-query-value');
  });

  it('generates an id when the client sends none, or one too long or with other characters', async () => {
    const kept = 'k'.repeat(128);
    expect((await get('/healthz', { headers: { 'X-Request-Id': kept } })).id).toBe(kept);
    for (const headers of [
      {} as Record<string, string>,
      { 'X-Request-Id': 'k'.repeat(129) },
      { 'X-Request-Id': 'two words' },
      { 'X-Request-Id': 'a"b' },
      { 'X-Request-Id': '' },
    ]) {
      const res = await get('/healthz', { headers });
      expect(res.id).toMatch(UUID);
      expect(await lineOf(res.id)).toMatchObject({ route: '/healthz', status: 200 });
    }
  });

  it('echoes and logs the id on answers no route gave: unknown paths, unreadable bodies', async () => {
    const unknown = await get('/no/such/path', { headers: { 'X-Request-Id': `unknown-${adapter}` } });
    expect(unknown.status).toBe(404);
    expect(unknown.id).toBe(`unknown-${adapter}`);
    expect(await lineOf(unknown.id)).toMatchObject({ level: WARN, method: 'GET', route: null, status: 404 });

    const malformed = await get('/api/v1/items', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Request-Id': `malformed-${adapter}` },
      body: '{"name":',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.id).toBe(`malformed-${adapter}`);
    expect(await lineOf(malformed.id)).toMatchObject({ level: WARN, method: 'POST', status: 400 });
  });

  it('never logs a password, a bearer token or a session cookie', async () => {
    const password = `log-test-passphrase-${adapter}-X9`;
    const registered = await get('/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: `logger${adapter}`, email: `logger-${adapter}@example.com`, password }),
    });
    expect(registered.status).toBe(201);
    const signIn = await fetch(`${app.url}/auth/token`, {
      method: 'POST',
      body: new URLSearchParams({ username: `logger${adapter}`, password }),
    });
    expect(signIn.status).toBe(200);
    const tokens = (await signIn.json()) as { access_token: string; refresh_token: string };
    expect((await get('/auth/me', { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
    const wrong = await fetch(`${app.url}/auth/token`, {
      method: 'POST',
      body: new URLSearchParams({ username: `logger${adapter}`, password: 'wrong-passphrase-Q7' }),
    });
    expect(wrong.status).toBe(401);
    const login = await fetch(`${app.url}/auth/login`, {
      method: 'POST',
      body: new URLSearchParams({ username: `logger${adapter}`, password }),
    });
    expect(login.status).toBe(200);
    const cookies = login.headers.getSetCookie().map((cookie) => cookie.split(';')[0]);
    const me = await get('/auth/me', { headers: { cookie: cookies.join('; ') } });
    expect(me.status).toBe(200);
    await lineOf(me.id);

    const output = app.output();
    expect(output).not.toContain(password);
    expect(output).not.toContain('wrong-passphrase-Q7');
    expect(output).not.toContain(tokens.access_token);
    expect(output).not.toContain(tokens.refresh_token);
    for (const cookie of cookies) expect(output).not.toContain(cookie.slice(cookie.indexOf('=') + 1));
    expect(output).not.toMatch(/authorization|cookie/i);
  });

  it('logs an unexpected error at error level with the id of the 500 it answered', async () => {
    // A table gone from under the running app: the next read of it fails inside the driver.
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(dataDir, 'crudsmith.sqlite3') },
      useNullAsDefault: true,
    });
    try {
      await knex.schema.renameTable('items', 'items_gone');
      const res = await get('/api/v2/items', { headers: { 'X-Request-Id': `broken-${adapter}` } });
      expect(res.status).toBe(500);
      expect(res.id).toBe(`broken-${adapter}`);
      expect(res.text).not.toContain('items');
      const line = await lineOf(res.id);
      expect(line).toMatchObject({ level: ERROR, method: 'GET', route: '/api/v2/items', status: 500 });
      expect(line.err?.message).toContain('no such table');
      // Once: on the request's line, never also on a line of its own.
      expect(
        app
          .output()
          .split('\n')
          .filter((text) => text.includes('no such table')),
      ).toHaveLength(1);
    } finally {
      await knex.schema.renameTable('items_gone', 'items');
      await knex.destroy();
    }
  });
});

describe('LOG_LEVEL of the example', () => {
  it('at warn, logs 4xx answers and leaves successful ones out', async () => {
    const app = await spawnApp({ LOG_LEVEL: 'warn' });
    try {
      const ok = await fetch(`${app.url}/healthz`);
      const missing = await fetch(`${app.url}/no/such/path`);
      const lines = async () => requestLines(app.output());
      for (let waited = 0; (await lines()).length === 0 && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await lines()).map((line) => line.requestId)).toEqual([missing.headers.get('x-request-id')]);
      expect(ok.headers.get('x-request-id')).toMatch(UUID);
    } finally {
      await app.stop();
    }
  }, 60_000);

  it('refuses to start with an unknown level and names the setting', async () => {
    await expect(spawnApp({ LOG_LEVEL: 'verbose' })).rejects.toThrow(
      /LOG_LEVEL=verbose is unknown; use one of fatal, error, warn, info, debug, trace, silent/,
    );
  }, 60_000);
});
