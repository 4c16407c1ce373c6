// The express-esm consumer: compiled in the user's project with its own tsc, and run with plain node.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { compile, esmConsumer, start, json, IOREDIS, foreignFiles, type UserProject } from '../user-project';

/** Registers the case of this consumer, run in the project `env`. */
export function expressEsmCase(env: UserProject): void {
  it('an ES module on Express (moduleResolution bundler) serves two API versions and rate-limits v2 in memory', async () => {
    // Only the types the imports reach (`types: ['node']`): an Express app has no Koa, koa-session, busboy or co-body types.
    const folder = esmConsumer('express-esm', { module: 'esnext', moduleResolution: 'bundler' });
    const files = await compile('express-esm');
    expect(files).toContain('node_modules/@types/express/index.d.ts');
    expect(
      foreignFiles(files, [
        'koa',
        '@types/koa',
        'koa-session',
        '@koa/router',
        '@types/busboy',
        '@types/co-body',
        'busboy',
        'co-body',
      ]),
    ).toEqual([]);
    // Counting in memory through @crudsmith/rate-limit: ioredis is installed, yet not one of its types is read.
    expect(existsSync(join(env.project, 'node_modules', 'ioredis', 'package.json'))).toBe(true);
    expect(foreignFiles(files, IOREDIS)).toEqual([]);
    const emitted = readFileSync(join(folder, 'dist', 'app.js'), 'utf8');
    expect(emitted).toMatch(/^import .* from '@crudsmith\/express';$/m);
    expect(emitted).not.toContain('require(');

    const url = await start('express-esm', 'dist/app.js', { DATABASE_FILE: 'items.sqlite3', RATE_LIMIT: '3' });
    const created = await fetch(`${url}/api/v1/items`, json('POST', { name: 'Hammer', price: 12.5 }));
    expect(created.status).toBe(201);
    expect(created.headers.get('x-api-deprecation')).toBe('v1 is deprecated; use /api/v2');
    expect(created.headers.get('sunset')).toBeTruthy();
    expect(await (await fetch(`${url}/api/versions`)).json()).toMatchObject({
      available_versions: ['v1', 'v2'],
      current_version: 'v2',
      deprecated_versions: ['v1'],
    });

    // v2 is limited to 3 requests per window on each path (whatever the method); v1 is not limited at all.
    const first = await fetch(`${url}/api/v2/items/1`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-api-deprecation')).toBeNull();
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(await first.json()).toEqual({ id: 1, name: 'Hammer', price: 12.5 });
    expect((await fetch(`${url}/api/v2/items/1`, json('PATCH', { price: 10 }))).status).toBe(200);
    expect(await (await fetch(`${url}/api/v2/items/1`)).json()).toEqual({ id: 1, name: 'Hammer', price: 10 });
    const limited = await fetch(`${url}/api/v2/items/1`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await (await fetch(`${url}/api/v2/items?name=Hammer`)).json()).toEqual({
      data: [{ id: 1, name: 'Hammer', price: 10 }],
      total_count: 1,
    });
    expect((await fetch(`${url}/api/v1/items`)).status).toBe(200);
    const unknown = await fetch(`${url}/api/v3/items`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toHaveProperty('detail');
  });
}
