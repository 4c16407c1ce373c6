import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { Redis, type RedisOptions } from 'ioredis';

// The real Redis the suites count against. Probed synchronously, once per
// file, so a suite can be declared or not; with CI=true an unreachable Redis is a
// failing test, never a silent skip.
const url = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
export const REDIS = { host: url.hostname, port: Number(url.port || 6379) };
const ci = process.env.CI === 'true' || process.env.CI === '1';

const PROBE = `
const s = require('node:net').connect(${REDIS.port}, ${JSON.stringify(REDIS.host)});
s.setTimeout(2000, () => process.exit(1));
s.on('error', () => process.exit(1));
s.on('connect', () => s.write('PING\\r\\n'));
s.on('data', (d) => process.exit(String(d).startsWith('+PONG') ? 0 : 1));`;
const available = spawnSync(process.execPath, ['-e', PROBE], { timeout: 5000 }).status === 0;

/** `describe` when Redis answers; a failing test under CI=true when it does not; skipped locally. */
export function describeRedis(name: string, body: () => void): void {
  if (available) describe(name, body);
  else if (ci)
    describe(name, () =>
      it(`needs Redis at ${REDIS.host}:${REDIS.port} (CI=true)`, () => {
        throw new Error(`Redis at ${REDIS.host}:${REDIS.port} is unreachable`);
      }),
    );
  else describe.skip(name, body);
}

/** A key prefix no other run shares. */
export function uniquePrefix(): string {
  return `cs-test:${process.pid}:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}:`;
}

/** A client of the test Redis whose keys all carry `keyPrefix`. */
export function testClient(options: RedisOptions = {}): Redis {
  return new Redis({ host: REDIS.host, port: REDIS.port, ...options });
}

/** Deletes every key under the prefix (run with a client without keyPrefix). */
export async function deleteKeys(prefix: string): Promise<void> {
  const plain = testClient();
  let cursor = '0';
  do {
    const [next, keys] = await plain.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await plain.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await plain.quit();
}

export { freePort } from '../../fixtures/ports';

const serverDirs = new Map<number, string>();

/** A throwaway redis-server on `port` (no persistence), waited for until it answers. */
export async function startRedisServer(port: number): Promise<void> {
  const dir = serverDirs.get(port) ?? mkdtempSync(join(tmpdir(), 'cs-redis-'));
  serverDirs.set(port, dir);
  const run = spawnSync('redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'yes',
    '--dir',
    dir,
    '--pidfile',
    join(dir, 'redis.pid'),
    '--logfile',
    join(dir, 'redis.log'),
  ]);
  if (run.status !== 0) throw new Error(`redis-server did not start: ${run.stderr}`);
  for (let i = 0; i < 50; i++) {
    if (
      spawnSync('redis-cli', ['-p', String(port), 'ping'])
        .stdout?.toString()
        .startsWith('PONG')
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`redis-server on ${port} never answered`);
}

/** Stops the throwaway server without saving; `removeFiles` once it will not be restarted. */
export function stopRedisServer(port: number, removeFiles = false): void {
  spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
  const dir = serverDirs.get(port);
  if (removeFiles && dir) {
    rmSync(dir, { recursive: true, force: true });
    serverDirs.delete(port);
  }
}

/** Waits until `check` holds, polling; fails after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`condition not met within ${ms} ms`);
}
