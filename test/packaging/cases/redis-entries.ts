// The redis-entries consumer: compiled in the user's project with its own tsc, and run with plain node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { freePort } from '../../fixtures/ports';
import { cleanEnv, run } from '../temp-project';
import { compile, esmConsumer } from '../user-project';

/** Registers the case of this consumer, run in the project `env`. */
export function redisEntriesCase(): void {
  it('an ES module (module nodenext) counts in a RedisStore and keeps sessions in a RedisSessionStore from the /redis entries, with ioredis types', async () => {
    const folder = esmConsumer('redis-entries', { module: 'nodenext' });
    const files = await compile('redis-entries');
    expect(files.some((file) => file.startsWith('node_modules/ioredis/'))).toBe(true);
    expect(readFileSync(join(folder, 'dist', 'app.js'), 'utf8')).toMatch(
      /^import \{ createRedisClient, RedisInvalidation, RedisStore \} from '@crudsmith\/rate-limit\/redis';$/m,
    );

    // A Redis that is not there: the store answers at once that it is unavailable, with the
    // main entry's error class (both entries share one copy of the package's modules).
    const { stdout } = await run(process.execPath, ['dist/app.js'], {
      cwd: folder,
      env: cleanEnv({ REDIS_PORT: String(await freePort()) }),
    });
    expect(JSON.parse(stdout)).toEqual({
      limiterStore: true,
      sessions: true,
      channel: 'crudsmith:rate-limit:invalidate',
      hit: 'StoreUnavailableError',
    });
  });
}
