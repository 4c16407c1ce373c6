import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../examples/app/src/server';
import { ENGINES } from '../fixtures/db';
import { closedPort } from '../fixtures/ports';
import { TcpProxy } from '../fixtures/tcp-proxy';
import { spawnApp } from './spawn-app';

// Starting the example with a service setting that points nowhere fails at once, exit code
// non-zero, with one line that names the setting: never a silent start that fails every
// request later, never a stack trace that does not say what to fix.

async function expectRefusedStart(env: Record<string, string>, setting: string, boundMs = 30_000): Promise<void> {
  const started = Date.now();
  const failure = await spawnApp(env).then(
    async (app) => {
      await app.stop();
      throw new Error(`the example started with ${JSON.stringify(env)}`);
    },
    (error: Error) => error.message,
  );
  expect(failure).toMatch(/exited with code [1-9]/);
  const output = failure.slice(failure.indexOf('\n') + 1);
  expect(output).toMatch(new RegExp(`^crudsmith example cannot start: ${setting}: cannot reach`, 'm'));
  // One line, no stack trace, no password.
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain('secret-password');
  expect(Date.now() - started).toBeLessThan(boundMs);
}

let silent: TcpProxy;
let closed: number;
beforeAll(async () => {
  closed = await closedPort();
  // Accepts connections and never answers: a host behind a network cut.
  silent = await TcpProxy.start({ host: '127.0.0.1', port: closed });
  await silent.set('silent');
});
afterAll(async () => {
  await silent?.close();
});

describe.each(ADAPTERS)('the example started with ADAPTER=%s and a service that does not answer', (adapter) => {
  it('refuses to start when REDIS_URL points to a closed port, naming REDIS_URL', async () => {
    await expectRefusedStart(
      { ADAPTER: adapter, REDIS_URL: `redis://:secret-password@127.0.0.1:${closed}` },
      'REDIS_URL',
    );
  }, 60_000);

  it.runIf(ENGINES.includes('postgres'))(
    'refuses to start when DATABASE_URL points to a dead PostgreSQL, naming DATABASE_URL',
    async () => {
      await expectRefusedStart(
        { ADAPTER: adapter, DATABASE_URL: `postgres://postgres:secret-password@127.0.0.1:${closed}/crudsmith` },
        'DATABASE_URL',
      );
    },
    60_000,
  );
});

describe('the example started with a service behind a network cut', () => {
  it('refuses to start within REDIS_CONNECT_TIMEOUT_MS when REDIS_URL never answers', async () => {
    await expectRefusedStart(
      { REDIS_URL: `redis://127.0.0.1:${silent.port}`, REDIS_CONNECT_TIMEOUT_MS: '1000' },
      'REDIS_URL',
      20_000,
    );
  }, 60_000);

  it.runIf(ENGINES.includes('postgres'))(
    'refuses to start within DATABASE_CONNECT_TIMEOUT_MS when a PostgreSQL DATABASE_URL never answers',
    async () => {
      await expectRefusedStart(
        { DATABASE_URL: `postgres://postgres@127.0.0.1:${silent.port}/crudsmith`, DATABASE_CONNECT_TIMEOUT_MS: '1000' },
        'DATABASE_URL',
        20_000,
      );
    },
    60_000,
  );

  it.runIf(ENGINES.includes('mysql'))(
    'refuses to start when a MariaDB DATABASE_URL points to a closed port or never answers',
    async () => {
      await expectRefusedStart(
        { DATABASE_URL: `mysql://root:secret-password@127.0.0.1:${closed}/crudsmith` },
        'DATABASE_URL',
      );
      await expectRefusedStart(
        { DATABASE_URL: `mysql://root@127.0.0.1:${silent.port}/crudsmith`, DATABASE_CONNECT_TIMEOUT_MS: '1000' },
        'DATABASE_URL',
        20_000,
      );
    },
    90_000,
  );

  it("refuses to start when the rate limiter's KVSTORE_RATE_LIMITER_HOST does not answer, naming it", async () => {
    await expectRefusedStart(
      { KVSTORE_RATE_LIMITER_HOST: '127.0.0.1', KVSTORE_RATE_LIMITER_PORT: String(closed) },
      'KVSTORE_RATE_LIMITER_HOST/_PORT',
    );
  }, 60_000);
});
